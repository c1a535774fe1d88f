// `chatflow upsert-history`: list with filters, soft delete by id; records seeded through the
// service's ingest route (POST /api/v1/upsert-history/{chatflowId}).
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRecords, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

interface Upsert {
  id: string;
  chatflowid: string;
  result: unknown;
  flowData: unknown;
  date: string;
}

async function serverIds(flow?: string): Promise<string[]> {
  return (await call<Upsert[]>('GET', `${server.api}/upsert-history${flow ? `/${flow}` : ''}`)).body.map((u) => u.id);
}

beforeAll(async () => {
  server = await startTestServer();
  const u = await call('POST', `${server.api}/upsert-history/flowU`, [
    { id: 'u1', result: { numAdded: 1 }, flowData: '{"nodes":[]}', date: '2026-01-05T00:00:00.000Z' },
    { id: 'u2', result: { numAdded: 2 }, flowData: {}, date: '2026-02-05T00:00:00.000Z' },
  ]);
  expect(u.status, u.text).toBeLessThan(300);
  const v = await call('POST', `${server.api}/upsert-history/flowV`, { id: 'v1', result: { numAdded: 3 }, flowData: {}, date: '2026-03-05T00:00:00.000Z' });
  expect(v.status, v.text).toBeLessThan(300);
});
afterAll(async () => {
  await server?.dispose();
});

describe('chatflow upsert-history', () => {
  it("list <chatflowId> prints that chatflow's records as stored (json)", async () => {
    const r = await cli(['upsert-history', 'list', 'flowU', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { id: 'u1', chatflowid: 'flowU', result: { numAdded: 1 }, flowData: '{"nodes":[]}', date: '2026-01-05T00:00:00.000Z' },
      { id: 'u2', chatflowid: 'flowU', result: { numAdded: 2 }, flowData: {}, date: '2026-02-05T00:00:00.000Z' },
    ]);
  });

  it('list without an id covers every chatflow; --order desc (alias uh ls, ids only)', async () => {
    const r = await cli(['uh', 'ls', '--order', 'desc', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('v1\nu2\nu1\n');
  });

  it('--start-date filters on the date (csv, objects as JSON cells)', async () => {
    const r = await cli(['upsert-history', 'list', 'flowU', '--start-date', '2026-02-01', '-o', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(csvRecords(r.stdout)).toEqual([{ id: 'u2', chatflowid: 'flowU', result: '{"numAdded":2}', flowData: '{}', date: '2026-02-05T00:00:00.000Z' }]);
  });

  it('yaml and, on a terminal, a table', async () => {
    const [yaml, table] = await Promise.all([
      cli(['upsert-history', 'list', 'flowV', '-o', 'yaml']),
      cli(['upsert-history', 'list', 'flowV'], { tty: true }),
    ]);
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual([{ id: 'v1', chatflowid: 'flowV', result: { numAdded: 3 }, flowData: {}, date: '2026-03-05T00:00:00.000Z' }]);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(tableRows(table.stdout)).toEqual([
      ['id', 'chatflowid', 'date', 'result'],
      ['v1', 'flowV', '2026-03-05 00:00', '{"numAdded":3}'],
    ]);
  });

  it('delete refuses without --yes; --dry-run shows the PATCH; neither deletes', async () => {
    const [refused, dry] = await Promise.all([
      cli(['upsert-history', 'delete', 'u1']),
      cli(['upsert-history', 'delete', 'u1', 'u2', '--chatflow', 'flowU', '--dry-run', '-o', 'json']),
    ]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/refused without confirmation/);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ method: 'PATCH', path: '/api/v1/upsert-history/flowU', body: { ids: ['u1', 'u2'] } });
    expect(await serverIds()).toHaveLength(3);
  });

  it('delete --yes marks the records; an unknown id is reported by name, exit 3', async () => {
    const r = await cli(['upsert-history', 'rm', 'u1', 'no-such-id', '--yes']);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain('deleted upsert history record u1');
    expect(r.stderr).toContain('upsert history record no-such-id not found');
    expect(await serverIds()).toEqual(['u2', 'v1']);
  });

  it('delete --chatflow only touches that chatflow', async () => {
    const r = await cli(['upsert-history', 'delete', 'v1', '--chatflow', 'flowU', '--yes']);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain('upsert history record v1 of chatflow flowU not found');
    expect(await serverIds('flowV')).toEqual(['v1']);
  });

  it('delete takes the start of an id (4+ characters), as the table shows it', async () => {
    const id = 'c0ffee42-0000-4000-8000-000000000001';
    await call('POST', `${server.api}/upsert-history/flowW`, { id, result: {}, flowData: {}, date: '2026-04-05T00:00:00.000Z' });
    const r = await cli(['upsert-history', 'delete', 'c0ffee42', '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted upsert history record ${id}`);
    expect(await serverIds('flowW')).toEqual([]);
  });
});
