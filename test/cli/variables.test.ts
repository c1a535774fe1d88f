// `chatflow variables`: every subcommand against a real service, output read back in each format.
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRecords, parseNdjson, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import type { Variable } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

async function serverVariables(): Promise<Variable[]> {
  return (await call<Variable[]>('GET', `${server.api}/variables`)).body;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.dispose();
});

describe('chatflow variables', () => {
  it('create prints the created variable (json) and it is on the server', async () => {
    const r = await cli(['variables', 'create', '--name', 'MODEL', '--value', 'gpt-4o', '--type', 'runtime', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout) as Variable;
    expect(created).toMatchObject({ name: 'MODEL', value: 'gpt-4o', type: 'runtime' });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await serverVariables()).map((v) => v.id)).toContain(created.id);
  });

  it('set creates a variable, then updates the one with that name (yaml, ndjson)', async () => {
    const first = await cli(['variables', 'set', 'REGION', 'eu-west-1', '-o', 'yaml']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain('created variable REGION');
    const created = parseYaml(first.stdout) as Variable;
    expect(created).toMatchObject({ name: 'REGION', value: 'eu-west-1', type: 'static' });

    const second = await cli(['variables', 'set', 'REGION', 'us-east-1', '--type', 'runtime', '-o', 'ndjson']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toContain('updated variable REGION');
    const lines = parseNdjson(second.stdout) as Variable[];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ id: created.id, value: 'us-east-1', type: 'runtime' });
    expect((await serverVariables()).filter((v) => v.name === 'REGION')).toHaveLength(1);
  });

  it('set of one new name by 20 commands at once: one variable, holding one of their values', async () => {
    const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const runs = await Promise.all(values.map((v) => cli(['variables', 'set', 'RACED', v, '-o', 'json'])));
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    expect(runs.filter((r) => r.stderr.includes('created variable RACED'))).toHaveLength(1);
    const raced = (await serverVariables()).filter((v) => v.name === 'RACED');
    expect(raced).toHaveLength(1);
    expect(values).toContain(raced[0]!.value);
    expect((await cli(['variables', 'get', 'RACED'])).exitCode).toBe(0);
  });

  it('get finds a variable by name and prints it as csv', async () => {
    const r = await cli(['variables', 'get', 'REGION', '-o', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = csvRecords(r.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'REGION', value: 'us-east-1', type: 'runtime' });
  });

  it('get by a name two variables share refuses with exit 2 and names both ids', async () => {
    const a = (await call('POST', `${server.api}/variables`, { name: 'TWIN', value: '1' })).body as Variable;
    const b = (await call('POST', `${server.api}/variables`, { name: 'TWIN', value: '2' })).body as Variable;
    const r = await cli(['variables', 'get', 'TWIN']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(a.id);
    expect(r.stderr).toContain(b.id);
    expect(r.stdout).toBe('');
    const set = await cli(['variables', 'set', 'TWIN', '3']);
    expect(set.exitCode).toBe(2);
    expect(set.stderr).toContain("several variables are named TWIN: update one by id with 'chatflow variables update'");
  });

  it('update changes only the given field and shows the record as a table on a terminal', async () => {
    const before = (await serverVariables()).find((v) => v.name === 'MODEL')!;
    const r = await cli(['variables', 'update', before.id, '--value', 'gpt-4o-mini'], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = Object.fromEntries(tableRows(r.stdout).map(([k, v]) => [k, v]));
    expect(rows).toMatchObject({ id: before.id, name: 'MODEL', value: 'gpt-4o-mini', type: 'runtime' });
    const after = (await serverVariables()).find((v) => v.id === before.id)!;
    expect(after.value).toBe('gpt-4o-mini');
    expect(after.type).toBe('runtime');
  });

  it('update reads a JSON body from stdin with --file -, flags overriding its keys', async () => {
    const target = (await serverVariables()).find((v) => v.name === 'MODEL')!;
    const r = await cli(['variables', 'update', target.id, '--file', '-', '--type', 'static', '-o', 'json'], {
      input: JSON.stringify({ value: 'from-stdin', type: 'runtime' }),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: target.id, value: 'from-stdin', type: 'static' });
  });

  it('update with nothing to change is a usage error (exit 2) and sends nothing', async () => {
    const target = (await serverVariables())[0]!;
    const r = await cli(['variables', 'update', target.id]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nothing to change/);
  });

  it('list prints every variable, most recently updated first (csv with --fields)', async () => {
    const r = await cli(['variables', 'list', '-o', 'csv', '--fields', 'name,value']);
    expect(r.exitCode, r.stderr).toBe(0);
    const expected = (await serverVariables()).map((v) => ({ name: v.name, value: v.value }));
    expect(csvRecords(r.stdout)).toEqual(expected);
    expect(r.stdout.split('\r\n')[0]).toBe('name,value');
  });

  it('create --dry-run prints the request and creates nothing', async () => {
    const before = (await serverVariables()).length;
    const r = await cli(['variables', 'create', '--name', 'DRY', '--value', 'run', '--dry-run', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: '/api/v1/variables', body: { name: 'DRY', value: 'run', type: 'static' } });
    expect(await serverVariables()).toHaveLength(before);
  });

  it('delete refuses without --yes when there is no terminal, then deletes with --yes', async () => {
    const target = (await call<Variable>('POST', `${server.api}/variables`, { name: 'DOOMED' })).body;
    const refused = await cli(['variables', 'delete', target.id]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/refused without confirmation.*--yes/);
    expect((await serverVariables()).map((v) => v.id)).toContain(target.id);

    const done = await cli(['variables', 'rm', target.id, '-y']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toContain(`deleted variable ${target.id}`);
    expect((await serverVariables()).map((v) => v.id)).not.toContain(target.id);
  });

  it('an unknown id is exit 3 for get and delete', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const results = await Promise.all([cli(['variables', 'get', id]), cli(['variables', 'delete', id, '--yes'])]);
    for (const r of results) {
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain(`${id} not found`);
      expect(r.stdout).toBe('');
    }
  });

  it('takes a unique start of an id (4+ characters), as tables show ids; an ambiguous one is exit 2 naming the candidates', async () => {
    const ids = ['6831dfb8-1111-4111-8111-111111111111', '6831dfb8-2222-4222-8222-222222222222', '7a40c2e9-3333-4333-8333-333333333333'];
    const imported = await call('POST', `${server.api}/variables/import`, [
      { id: ids[0], name: 'PREFIX_A', value: 'a' },
      { id: ids[1], name: 'PREFIX_B', value: 'b' },
      { id: ids[2], name: 'PREFIX_C', value: 'c' },
    ]);
    expect(imported.status, imported.text).toBeLessThan(300);
    const got = await cli(['variables', 'get', '7a40c2e9', '-o', 'json']);
    expect(got.exitCode, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: ids[2], name: 'PREFIX_C' });
    const updated = await cli(['variables', 'update', '7A40', '--value', 'c2', '-o', 'json']);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: ids[2], value: 'c2' });

    const ambiguous = await cli(['variables', 'get', '6831dfb8']);
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toBe(`chatflow: 6831dfb8 starts the ids of 2 variables: give more of it (${ids[1]} PREFIX_B, ${ids[0]} PREFIX_A)\n`);
    const tooShort = await cli(['variables', 'get', '7a4']);
    expect(tooShort.exitCode).toBe(3);
  });

  it('a bulk delete counts and names only what exists; the rest is reported, exit 3', async () => {
    await call('POST', `${server.api}/variables`, { name: 'BULK_ONE' });
    const r = await cli(['variables', 'delete', 'BULK_ONE', 'NO_SUCH_VARIABLE']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^chatflow: variable NO_SUCH_VARIABLE not found\nchatflow: Delete 1 variable \(BULK_ONE\) on http:\S+ \(CHATFLOW_URL\): refused without confirmation/);
    const done = await cli(['variables', 'delete', 'BULK_ONE', 'NO_SUCH_VARIABLE', '--yes']);
    expect(done.exitCode).toBe(3);
    expect((await serverVariables()).map((v) => v.name)).not.toContain('BULK_ONE');
  });
});
