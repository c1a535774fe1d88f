// A big chatflow on Flowise, read in bounded pieces (src/client/date-windows.ts): Flowise answers a
// whole chatflow's list only once it has built all of it, but a date window costs what it holds
// (plus a scan). Each test asserts what the CLI asked for as well as what it printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture, type SeedRow } from '../helpers/flowise-fixture.js';

const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const MINUTE = 60_000;

/** `sessions` short chats of four messages over three minutes, one starting every minute (they overlap). */
function chats(prefix: string, sessions: number): SeedRow[] {
  const rows: SeedRow[] = [];
  for (let s = 0; s < sessions; s++) {
    for (let k = 0; k < 4; k++) {
      rows.push({
        id: `${prefix}-${s}-${k}`,
        role: k % 2 ? 'apiMessage' : 'userMessage',
        content: `message ${k} of chat ${s}`,
        chatId: `${prefix}-c${s}`,
        sessionId: `${prefix}-s${s}`,
        createdDate: new Date(T0 + s * MINUTE + k * MINUTE + s).toISOString(),
        ms: true,
      });
    }
  }
  return rows;
}

const byDate = (rows: SeedRow[]) => [...rows].sort((a, b) => Date.parse(a.createdDate) - Date.parse(b.createdDate)).map((m) => m.id);

describe('a big chatflow on Flowise', () => {
  let fx: FlowiseFixture;
  const cli = (args: string[]) => runCli(args, { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });
  const big = chats('b', 600);
  const mixed = chats('m', 30);
  // Messages without a session (a hard-coded or missing one): never in a session page, in a window too.
  const sessionless = [5, 200, 10_000].map((min, i) => ({ id: `m-none-${i}`, role: 'userMessage', content: 'no session', chatId: 'm-none', createdDate: new Date(T0 + min * MINUTE).toISOString(), ms: true }));
  /** The GETs of a chatflow's messages since `n` requests. */
  const gets = (flow: string, n: number) =>
    fx.requests
      .slice(n)
      .filter((q) => q.method === 'GET' && q.url.startsWith(`/api/v1/chatmessage/${fx.idOf(flow)}`))
      .map((q) => new URL(q.url, 'http://x').searchParams);

  beforeAll(async () => {
    fx = await startFlowiseFixture();
    fx.seed('big', { messages: big });
    fx.seed('mixed', { messages: [...mixed, ...sessionless] });
  });
  afterAll(() => fx?.close());

  it('messages list: every message in date order, read by date windows, never the whole list at once', async () => {
    const n = fx.requests.length;
    const r = await cli(['messages', 'list', 'big', '-o', 'ndjson']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout).map((m) => (m as { id: string }).id)).toEqual(byDate(big));
    // Not one message carries the `feedback` property a session page adds.
    expect(r.stdout).not.toContain('"feedback"');
    const asked = gets('big', n);
    expect(asked.length).toBeGreaterThan(3);
    // One session page of one session finds the start; then windows, each bounded below or above.
    expect(asked.filter((q) => q.has('page')).map((q) => q.get('limit'))).toEqual(['1']);
    for (const q of asked.filter((q) => !q.has('page'))) expect(q.has('startDate') || q.has('endDate')).toBe(true);
  });

  it('--order desc: newest first, exact', async () => {
    const r = await cli(['messages', 'list', 'big', '--order', 'desc', '-o', 'ndjson']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout).map((m) => (m as { id: string }).id)).toEqual(byDate(big).reverse());
  });

  it('--page 1 --limit 10 costs a window or two, not the list; the total is a lower bound', async () => {
    const n = fx.requests.length;
    const r = await cli(['messages', 'list', 'big', '--page', '1', '--limit', '10', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((m) => m.id)).toEqual(byDate(big).slice(0, 10));
    expect(r.stderr).toContain('11 messages or more in all');
    expect(gets('big', n).length).toBeLessThanOrEqual(4);
  });

  it('messages without a session are listed too, in their place', async () => {
    const r = await cli(['messages', 'list', 'mixed', '-o', 'ndjson']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout).map((m) => (m as { id: string }).id)).toEqual(byDate([...mixed, ...sessionless]));
  });

  it('export, stats and a delete count read the same windows, whole', async () => {
    const out = await cli(['export', '--resources', 'messages', '--chatflow', 'big']);
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout.trim().split('\n')).toHaveLength(big.length);
    const dry = await cli(['messages', 'delete', 'big', '--end-date', new Date(T0 + 100 * MINUTE).toISOString(), '--utc', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`${big.filter((m) => Date.parse(m.createdDate) <= T0 + 100 * MINUTE).length} messages match`);
  });
});
