// Flowise compatibility: the CLI against a small local server answering with the shapes a real
// Flowise 3.1 gives (test/helpers/flowise-fixture.ts, from docs/spec/flowise-observed.md).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, csvRecords, parseNdjson, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { CHATFLOW_A, CHATFLOW_B, CREDENTIAL_SECRET, CREDENTIALS, startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';

let fx: FlowiseFixture;
const ASSISTANT = 'c151b0b4-591e-4fe9-b1ff-a9838b0e6095';

const cli = (args: string[], opts: CliOptions = {}) =>
  runCli(args, { url: fx.url, ...opts, env: { CHATFLOW_API_KEY: fx.apiKey, ...opts.env } });

beforeAll(async () => {
  fx = await startFlowiseFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe('against Flowise', () => {
  it('api: a path Flowise lacks (its UI page, status 200) is exit 1 and one line, not the page', async () => {
    const r = await cli(['api', 'GET', '/no-such-route']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('chatflow: this server has no GET /no-such-route: it answered with its web page, as Flowise does for a path it lacks');
    const ping = await cli(['api', 'GET', '/ping']);
    expect([ping.exitCode, ping.stdout]).toEqual([0, 'pong\n']);
  });

  it('variables list: every variable, as Flowise orders them', async () => {
    const r = await cli(['variables', 'list', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const names = (JSON.parse(r.stdout) as { name: string }[]).map((v) => v.name);
    expect(names).toHaveLength(3);
    expect(names[2]).toBe('v_static');
    expect(new Set(names)).toEqual(new Set(['v_static', 'v_runtime', 'v_notype']));
  });

  it("variables list --page/--limit reads Flowise's {data, total} page", async () => {
    const r = await cli(['variables', 'list', '--page', '1', '--limit', '2', '-o', 'ndjson']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout)).toHaveLength(2);
    expect(r.stderr).toContain('3 variables in all');
  });

  it('assistants: details stored as a JSON string are shown as an object', async () => {
    const [json, csv, table] = await Promise.all([
      cli(['assistants', 'list', '-o', 'json']),
      cli(['assistants', 'get', ASSISTANT, '-o', 'csv', '--fields', 'id,details.name,details.instruction']),
      cli(['assistants', 'list'], { tty: true }),
    ]);
    expect(json.exitCode, json.stderr).toBe(0);
    const [a] = JSON.parse(json.stdout) as { details: unknown }[];
    expect(a!.details).toEqual({ name: 'asst-one', instruction: 'be helpful', chatModel: {}, tools: [] });
    expect(csvRecords(csv.stdout)).toEqual([{ id: ASSISTANT, 'details.name': 'asst-one', 'details.instruction': 'be helpful' }]);
    const [head, row] = tableRows(table.stdout);
    expect(row![head!.indexOf('details.name')]).toBe('asst-one');
  });

  it('a missing record reported as a 500 "not found" is exit 3', async () => {
    const r = await cli(['assistants', 'get', '00000000-0000-0000-0000-000000000000']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/not found/);
    expect(r.stderr).not.toMatch(/Error: assistantsService/);
  });

  it('401 {"error":"Unauthorized Access"}: exit 4 with a clear message, with or without a key', async () => {
    const [none, wrong] = await Promise.all([
      cli(['variables', 'list'], { env: { CHATFLOW_API_KEY: undefined } }),
      cli(['variables', 'list'], { env: { CHATFLOW_API_KEY: 'fx-not-a-key-123456' } }),
    ]);
    expect(none.exitCode).toBe(4);
    expect(none.stderr).toMatch(/^chatflow: unauthorized: the server requires an API key \(set one with --api-key/);
    expect(wrong.exitCode).toBe(4);
    expect(wrong.stderr).toMatch(/^chatflow: unauthorized: the server refused the API key/);
  });

  it('403 {"message":"Forbidden"} for a read-only key: exit 4 naming the call', async () => {
    const r = await cli(['assistants', 'list'], { env: { CHATFLOW_API_KEY: fx.readOnlyKey } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe('chatflow: assistants list: forbidden: the API key may not read assistants\n');
  });

  it("a route Flowise lacks (its UI page, 200 text/html) is 'does not support', not success", async () => {
    const home = createHome();
    const file = join(home.dir, 'export.jsonl');
    writeFileSync(file, `${JSON.stringify({ resource: 'variable', data: { id: '11111111-0000-4000-8000-000000000000', name: 'IMPORTED', value: 'x', type: 'static' } })}\n`);
    const r = await cli(['import', file], { home });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^chatflow: import: this server does not support importing variables$/m);
  });

  it('upsert-history delete --chatflow: Flowise has no PATCH /upsert-history/{id}, so the ids go to /upsert-history', async () => {
    const id = 'bbbbbbbb-0000-0000-0000-000000000001';
    const r = await cli(['upsert-history', 'delete', id, '--chatflow', CHATFLOW_A, '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted upsert history record ${id}`);
    const patches = fx.requests.filter((q) => q.method === 'PATCH').map((q) => q.url);
    expect(patches).toEqual(['/api/v1/upsert-history']);
  });

  it('feedback update: Flowise answers {"status":"OK"}; the CLI shows the change and it is stored', async () => {
    const id = 'abb94aa9-af7a-43fe-a337-7998f6380f58';
    const r = await cli(['feedback', 'update', id, '--rating', 'down', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, rating: 'THUMBS_DOWN' });
    // /feedback needs no key on Flowise.
    const list = await cli(['feedback', 'list', CHATFLOW_A, '-o', 'json'], { env: { CHATFLOW_API_KEY: undefined } });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).find((f: { id: string }) => f.id === id).rating).toBe('THUMBS_DOWN');
  });

  it('messages: --order desc goes out as DESC; JSON held in strings comes back as arrays', async () => {
    const [desc, other] = await Promise.all([
      cli(['messages', 'list', CHATFLOW_A, '--chat-type', 'EXTERNAL', '--order', 'desc', '-q']),
      cli(['messages', 'list', CHATFLOW_B, '-o', 'json', '--fields', 'id,usedTools']),
    ]);
    expect(desc.exitCode, desc.stderr).toBe(0);
    expect(desc.stdout.trim().split('\n')).toEqual([6, 5, 4, 3].map((n) => `aaaaaaaa-0000-0000-0000-00000000000${n}`));
    expect(other.exitCode, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout)[1].usedTools).toEqual([{ tool: 'calculator', toolInput: { x: '1+1' }, toolOutput: '2' }]);
  });

  it('variables delete of an unknown id (Flowise: 200 affected 0) is exit 3', async () => {
    const r = await cli(['variables', 'delete', '00000000-0000-0000-0000-000000000000', '--yes']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/not found/);
  });

  it('assistants update of one details field keeps the others (Flowise replaces details whole)', async () => {
    const r = await cli(['assistants', 'update', ASSISTANT, '--temperature', '0.5', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).details).toEqual({ name: 'asst-one', instruction: 'be helpful', chatModel: {}, tools: [], temperature: 0.5 });
  });

  it('variables set and create send type static unless --type says otherwise (Flowise stores string when none is sent)', async () => {
    const [set, created] = await Promise.all([
      cli(['variables', 'set', 'V_SET_STATIC', 'x', '-o', 'json']),
      cli(['variables', 'create', '--name', 'V_CREATED_STATIC', '--value', 'y', '-o', 'json']),
    ]);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ name: 'V_SET_STATIC', type: 'static' });
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'V_CREATED_STATIC', type: 'static' });
    // An existing variable keeps its type.
    const runtime = await cli(['variables', 'create', '--name', 'V_KEEPS', '--value', 'r', '--type', 'runtime']);
    expect(runtime.exitCode, runtime.stderr).toBe(0);
    const again = await cli(['variables', 'set', 'V_KEEPS', 'z', '-o', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'V_KEEPS', type: 'runtime', value: 'z' });
  });

  it('an unknown chatflow lists nothing (exit 0) and says so, with the nearest name; the start of an id is taken', async () => {
    const typo = await cli(['messages', 'list', 'peer-flw-A', '-o', 'json']);
    expect([typo.exitCode, typo.stdout]).toEqual([0, '[]\n']);
    expect(typo.stderr).toBe('No messages found.\nno chatflow peer-flw-A on this server; did you mean peer-flow-A?\n');
    const known = await cli(['messages', 'list', 'peer-flow-A', '-o', 'json']);
    expect(known.stderr).not.toContain('no chatflow');
    const short = await cli(['upsert-history', 'list', CHATFLOW_A.slice(0, 8), '-o', 'json', '--debug']);
    expect(short.exitCode, short.stderr).toBe(0);
    expect(short.stderr).toContain(`/upsert-history/${CHATFLOW_A}`);
  });

  it('credentials list: names, kinds and ids from /api/v1/credentials, never a secret', async () => {
    const [json, table] = await Promise.all([cli(['credentials', 'list', '-o', 'json']), cli(['credentials', 'ls'], { tty: true })]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(CREDENTIALS.map(({ id, name, credentialName }) => ({ id, name, credentialName })));
    expect(tableRows(table.stdout)).toEqual([['id', 'name', 'credentialName'], ...CREDENTIALS.map((c) => [c.id, c.name, c.credentialName])]);
    for (const r of [json, table]) expect(r.stdout + r.stderr).not.toContain(CREDENTIAL_SECRET);
    // Asked without credentialName, the one query with which Flowise adds the secret.
    expect(fx.requests.some((q) => q.url.startsWith('/api/v1/credentials?'))).toBe(false);
    expect(fx.requests.some((q) => q.url === '/api/v1/credentials')).toBe(true);
  });

  it('assistants create --credential <TAB> completes the credential ids, with their names and kinds', async () => {
    const r = await cli(['__complete', '--', 'assistants', 'create', '--credential', '']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(CREDENTIALS.map((c) => `${c.id}\t${c.name} (${c.credentialName})`).sort());
  });

  it("an assistant's missing or unknown credential is said in the CLI's words, naming --credential and how to find one", async () => {
    const [missing, custom, unknown, known] = await Promise.all([
      cli(['assistants', 'create', '--name', 'X', '--model', 'gpt-4o']),
      cli(['assistants', 'create', '--name', 'X', '--model', 'gpt-4o', '--type', 'custom']),
      cli(['assistants', 'create', '--name', 'X', '--type', 'openai', '--credential', 'eeeeeeee-0000-0000-0000-000000000009']),
      cli(['assistants', 'create', '--name', 'With credential', '--type', 'openai', '--credential', CREDENTIALS[0]!.id, '-o', 'json']),
    ]);
    expect([missing.exitCode, missing.stderr]).toEqual([2, "chatflow: this server needs --credential <id> for an assistant of this type: find one with 'chatflow credentials list'\n"]);
    expect([custom.exitCode, custom.stderr]).toEqual([2, "chatflow: this server needs --credential <id> for every assistant, --type custom too: find one with 'chatflow credentials list'\n"]);
    expect([unknown.exitCode, unknown.stderr]).toEqual([2, "chatflow: no credential eeeeeeee-0000-0000-0000-000000000009 on this server (--credential): find one with 'chatflow credentials list'\n"]);
    expect(known.exitCode, known.stderr).toBe(0);
    expect(JSON.parse(known.stdout)).toMatchObject({ credential: CREDENTIALS[0]!.id, type: 'OPENAI' });
  });
});
