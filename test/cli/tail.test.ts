// `chatflow messages tail`: the latest messages, then --follow against a server that receives new
// messages during the test (nothing missed, nothing twice, also at the boundary instant), the chat
// layout on a terminal, and a Flowise-shaped server (uppercase DESC, no ingest route).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, parseNdjson, runCli, spawnCli, waitForLine, type CliOptions } from '../helpers/cli.js';
import { CHATFLOW_A, startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let flowise: FlowiseFixture;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

interface Msg {
  id: string;
  role: string;
  content: string;
  createdDate: string;
  sessionId?: string;
}

async function ingest(flow: string, messages: Record<string, unknown> | Record<string, unknown>[]): Promise<void> {
  const r = await call('POST', `${server.api}/chatmessage/${flow}`, messages);
  expect(r.status, r.text).toBe(200);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, what: () => string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting: ${what()}`);
    await sleep(25);
  }
}

beforeAll(async () => {
  [server, flowise] = await Promise.all([startTestServer(), startFlowiseFixture()]);
  // A small conversation in two sessions, one answer with a tool and a long text.
  await ingest('chat', [
    { id: 'c1', role: 'userMessage', content: 'How do I reset my password?', sessionId: 's1', chatId: 'c-s1', chatType: 'EXTERNAL', createdDate: '2026-05-01T09:00:00.000Z' },
    {
      id: 'c2',
      role: 'apiMessage',
      content: 'Open Settings, then Security, and choose "Reset password". A link arrives by e-mail within a minute; it is valid for one hour.\nStill stuck? Write to support.',
      sessionId: 's1',
      chatId: 'c-s1',
      chatType: 'EXTERNAL',
      usedTools: [{ tool: 'knowledge_base', toolInput: { q: 'reset' }, toolOutput: 'found' }],
      createdDate: '2026-05-01T09:00:04.000Z',
    },
    { id: 'c3', role: 'userMessage', content: 'Do you ship to Norway?', sessionId: 's2', chatId: 'c-s2', chatType: 'INTERNAL', createdDate: '2026-05-01T09:05:00.000Z' },
    { id: 'c4', role: 'apiMessage', content: 'Yes, in 3–5 working days.', sessionId: 's2', chatId: 'c-s2', chatType: 'INTERNAL', createdDate: '2026-05-02T08:00:00.000Z' },
  ]);
});
afterAll(async () => {
  await Promise.all([server?.dispose(), flowise?.close()]);
});

describe('chatflow messages tail', () => {
  it('prints the latest N oldest first, as ndjson when piped and a JSON array with -o json', async () => {
    const piped = await cli(['messages', 'tail', 'chat', '-n', '3']);
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect((parseNdjson(piped.stdout) as Msg[]).map((m) => m.id)).toEqual(['c2', 'c3', 'c4']);

    // A profile's json is asked for too: an array, as every other list prints it on a terminal.
    const home = createHome();
    expect((await runCli(['config', 'set', 'output', 'json'], { home })).exitCode).toBe(0);
    const [profiled, listed] = await Promise.all([
      cli(['messages', 'tail', 'chat', '-n', '2'], { home, tty: true }),
      cli(['messages', 'list', 'chat', '--limit', '2'], { home, tty: true }),
    ]);
    expect(profiled.stdout).toMatch(/^\[\n {2}\{\n/);
    expect(listed.stdout).toMatch(/^\[\n {2}\{\n/);

    const json = await cli(['messages', 'tail', 'chat', '--lines', '2', '-o', 'json']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as Msg[]).map((m) => m.id)).toEqual(['c3', 'c4']);

    const all = await cli(['messages', 'tail', 'chat', '-o', 'ndjson', '--session-id', 's1']);
    expect((parseNdjson(all.stdout) as Msg[]).map((m) => m.id)).toEqual(['c1', 'c2']);

    const none = await cli(['messages', 'tail', 'nothing-here']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('No messages found.\nno chatflow nothing-here on this server\n');
    const typo = await cli(['messages', 'tail', 'chta', '-o', 'json']);
    expect(typo.stderr).toBe('no chatflow chta on this server; did you mean chat?\n');
  });

  it('lays a conversation out on a terminal: sessions, times, roles, wrapped content, tools', async () => {
    const r = await cli(['messages', 'tail', 'chat'], { tty: true, env: { COLUMNS: '60', NO_COLOR: '1' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stdout).toMatchInlineSnapshot(`
      "── session s1 · EXTERNAL · 2026-05-01 ──────────────────────
      09:00:00  user  How do I reset my password?
      09:00:04  bot   Open Settings, then Security, and choose
                      "Reset password". A link arrives by e-mail
                      within a minute; it is valid for one hour.
                      Still stuck? Write to support.
                      tools: knowledge_base

      ── session s2 · INTERNAL · 2026-05-01 ──────────────────────
      09:05:00  user  Do you ship to Norway?

      ── session s2 · INTERNAL · 2026-05-02 ──────────────────────
      08:00:00  bot   Yes, in 3–5 working days.
      "
    `);
    for (const line of r.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(60);

    const coloured = await cli(['messages', 'tail', 'chat', '-n', '1'], { tty: true });
    expect(coloured.stdout).toMatch(/\u001b\[/);
  });

  it('never lets message text move the cursor or recolour the terminal', async () => {
    await ingest('evil', { id: 'e1', role: 'userMessage', content: 'hi \u001b[2J\u001b[31mred\u0007', sessionId: 'x', createdDate: '2026-05-01T00:00:00.000Z' });
    const r = await cli(['messages', 'tail', 'evil'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.stdout).not.toMatch(/[\u001b\u0007]/);
    expect(r.stdout).toContain('hi \uFFFD[2J\uFFFD[31mred\uFFFD');
  });

  it('--follow prints each new message once: nothing missed, nothing twice, several at the boundary instant', async () => {
    const flow = 'live';
    const t0 = Date.now() - 60_000;
    const at = (ms: number) => new Date(ms).toISOString();
    await ingest(
      flow,
      [0, 1, 2, 3, 4].map((i) => ({ id: `pre-${i}`, role: 'userMessage', content: `before ${i}`, sessionId: 's', createdDate: at(t0 - (4 - i) * 1000) })),
    );

    const proc = spawnCli(['messages', 'tail', flow, '--follow', '--interval', '200ms', '-o', 'ndjson', '-n', '2'], { url: server.url, timeout: 60_000 });
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const ids = () => (parseNdjson(out.slice(0, out.lastIndexOf('\n') + 1)) as Msg[]).map((m) => m.id);
    const expected = ['pre-3', 'pre-4'];
    const printedAll = () => expected.every((id) => ids().includes(id));
    const why = () => `expected ${expected.join(',')}\ngot ${ids().join(',')}`;
    try {
      await waitFor(() => ids().length === 2, why);
      expect(ids()).toEqual(['pre-3', 'pre-4']);

      // Three more at exactly the instant of the newest message already printed.
      const same = ['b-0', 'b-1', 'b-2'];
      await ingest(flow, same.map((id) => ({ id, role: 'apiMessage', content: id, sessionId: 's', createdDate: at(t0) })));
      expected.push(...same);
      await waitFor(printedAll, why);

      // The boundary instant again, in separate requests, and the next millisecond.
      for (const id of ['c-0', 'c-1']) {
        await ingest(flow, { id, role: 'userMessage', content: id, sessionId: 's', createdDate: at(t0) });
        expected.push(id);
        await sleep(120);
      }
      await ingest(flow, [
        { id: 'd-0', role: 'userMessage', content: 'd-0', sessionId: 's', createdDate: at(t0 + 1) },
        { id: 'd-1', role: 'userMessage', content: 'd-1', sessionId: 's', createdDate: at(t0 + 1) },
      ]);
      expected.push('d-0', 'd-1');
      await waitFor(printedAll, why);

      // A burst while it polls: single messages dated by the server, and groups sharing an
      // instant split over requests that land on both sides of a poll.
      for (let i = 0; i < 12; i++) {
        await ingest(flow, { id: `live-${i}`, role: 'userMessage', content: `live ${i}`, sessionId: 's2' });
        expected.push(`live-${i}`);
        const instant = at(Date.now());
        await ingest(flow, [
          { id: `g-${i}-a`, role: 'apiMessage', content: 'a', sessionId: 's2', createdDate: instant },
          { id: `g-${i}-b`, role: 'apiMessage', content: 'b', sessionId: 's2', createdDate: instant },
        ]);
        await sleep(i % 3 === 0 ? 210 : 40);
        await ingest(flow, { id: `g-${i}-c`, role: 'apiMessage', content: 'c', sessionId: 's2', createdDate: instant });
        expected.push(`g-${i}-a`, `g-${i}-b`, `g-${i}-c`);
      }
      await waitFor(printedAll, why);
      // A few more polls: nothing may come twice.
      await sleep(1000);
    } finally {
      proc.kill('SIGINT');
    }
    const result = await proc;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const printed = ids();
    expect(printed).toHaveLength(expected.length);
    expect(new Set(printed).size).toBe(printed.length);
    expect([...printed].sort()).toEqual([...expected].sort());
    expect(out.endsWith('\n')).toBe(true);
  });

  it('--follow with filters and -n 0 prints only new matching messages', async () => {
    await ingest('filtered', { id: 'old', role: 'userMessage', content: 'old', sessionId: 'keep', createdDate: new Date(Date.now() - 10_000).toISOString() });
    const proc = spawnCli(['messages', 'tail', 'filtered', '-f', '--interval', '100ms', '-n', '0', '--session-id', 'keep', '--debug'], { url: server.url, timeout: 30_000 });
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      // Polling has begun (a request with the moving startDate): the old message is behind it.
      await waitForLine(proc.stderr!, /GET \S+chatmessage\/filtered\?\S*startDate=\S+ 200/);
      await ingest('filtered', [
        { id: 'other', role: 'userMessage', content: 'x', sessionId: 'skip' },
        { id: 'new', role: 'userMessage', content: 'y', sessionId: 'keep' },
      ]);
      await waitFor(() => out.includes('"new"'), () => out);
      await sleep(400);
    } finally {
      proc.kill('SIGINT');
    }
    const result = await proc;
    expect(result.exitCode).toBe(0);
    expect((parseNdjson(out) as Msg[]).map((m) => m.id)).toEqual(['new']);
  });

  it('--follow of a chatflow the server does not know says so once caught up, and goes on following', async () => {
    const proc = spawnCli(['messages', 'tail', 'chta', '-f', '--interval', '100ms', '-o', 'ndjson'], { url: server.url, timeout: 30_000 });
    try {
      await waitForLine(proc.stderr!, /^no chatflow chta on this server; did you mean chat\?$/);
    } finally {
      proc.kill('SIGINT');
    }
    expect((await proc).exitCode).toBe(0);
  });

  it('rejects a bad --interval or --lines with exit 2', async () => {
    const r = await cli(['messages', 'tail', 'chat', '-f', '--interval', 'soon']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid --interval "soon"');
    expect((await cli(['messages', 'tail', 'chat', '-n', '-1'])).exitCode).toBe(2);
  });
});

describe('chatflow messages tail against a Flowise server', () => {
  const fx = (): CliOptions => ({ url: flowise.url, env: { CHATFLOW_API_KEY: flowise.apiKey } });

  it('takes the latest N with order=DESC and follows with a moving startDate, printing nothing twice', async () => {
    const r = await runCli(['messages', 'tail', CHATFLOW_A, '-n', '2'], fx());
    expect(r.exitCode, r.stderr).toBe(0);
    expect((parseNdjson(r.stdout) as Msg[]).map((m) => m.content)).toEqual(['question (c3)', 'answer (c3)']);
    expect(flowise.requests.some((q) => q.url.includes('order=DESC'))).toBe(true);

    const before = flowise.requests.length;
    const proc = spawnCli(['messages', 'tail', CHATFLOW_A, '-n', '1', '--follow', '--interval', '100ms'], { ...fx(), timeout: 30_000 });
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // The latest first (its date windows ask startDate= too), then the polls.
    let caught = before;
    const polls = () => flowise.requests.slice(caught).filter((q) => q.url.includes('startDate='));
    try {
      await waitFor(() => out.includes('answer (c3)'), () => `printed ${JSON.stringify(out)}`);
      caught = flowise.requests.length;
      await waitFor(() => polls().length >= 4, () => `${polls().length} polls`);
    } finally {
      proc.kill('SIGINT');
    }
    const result = await proc;
    expect(result.exitCode).toBe(0);
    expect((parseNdjson(out) as Msg[]).map((m) => m.content)).toEqual(['answer (c3)']);
  });
});
