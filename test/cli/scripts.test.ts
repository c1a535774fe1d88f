// What scripts and daily workflows lean on: bulk commands that try every argument, paths checked
// before any work, names wherever an id is taken, chatflows by name, enum values in any case,
// `diff --exit-code`.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, runCli, spawnCli, type CliOptions } from '../helpers/cli.js';
import { CHATFLOW_A, startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Assistant, Variable } from '../../src/client/index.js';

let server: TestServer;
let other: TestServer;
let fx: FlowiseFixture;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });
const variables = async (s = server) => (await call<Variable[]>('GET', `${s.api}/variables`)).body;
const addVariable = async (name: string, value = 'v', s = server) => (await call<Variable>('POST', `${s.api}/variables`, { name, value })).body;

beforeAll(async () => {
  [server, other, fx] = await Promise.all([startTestServer(), startTestServer(), startFlowiseFixture()]);
});
afterAll(async () => {
  await Promise.all([server?.dispose(), other?.dispose(), fx?.close()]);
});

describe('bulk commands try every argument', () => {
  it('vars rm: deletes the ones that exist (by id or name), reports the missing one, exit 3 after all', async () => {
    const a = await addVariable('BULK_A');
    await addVariable('BULK_B');
    const r = await cli(['vars', 'rm', a.id, 'no-such-variable', 'BULK_B', '-y']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('variable no-such-variable not found');
    expect(r.stderr).toContain(`deleted variable ${a.id}`);
    expect(r.stderr).toMatch(/deleted variable BULK_B/);
    expect((await variables()).filter((v) => v.name.startsWith('BULK_'))).toEqual([]);
  });

  it('assistants rm: by id and by details.name, the missing one reported, exit 3', async () => {
    const made = [];
    for (const name of ['asst-1', 'asst-2']) made.push((await call<Assistant>('POST', `${server.api}/assistants`, { details: { name } })).body);
    const r = await cli(['assistants', 'rm', made[0]!.id, '00000000-0000-4000-8000-000000000000', 'asst-2', '-y']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('assistant 00000000-0000-4000-8000-000000000000 not found');
    expect((await call<Assistant[]>('GET', `${server.api}/assistants`)).body).toEqual([]);
  });

  it('upsert-history rm: each id on its own, the missing one named, exit 3', async () => {
    await call('POST', `${server.api}/upsert-history/flow-uh`, [{ id: 'uh-1' }, { id: 'uh-2' }]);
    const r = await cli(['upsert-history', 'rm', 'uh-1', 'uh-missing', 'uh-2', '-y']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('upsert history record uh-missing not found');
    expect((await call<unknown[]>('GET', `${server.api}/upsert-history/flow-uh`)).body).toEqual([]);
  });
});

describe('paths are checked before any work', () => {
  it('export --out into a missing directory, or onto a directory: one line, exit 2, nothing asked of the server', async () => {
    const home = createHome();
    for (const out of [join(home.dir, 'no', 'such', 'x.jsonl'), home.dir]) {
      // No server at all: the check comes first.
      const r = await runCli(['export', '--out', out], { home, url: 'http://127.0.0.1:9' });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^chatflow: cannot write --out /);
    }
  });

  it('import of a missing file or a directory, --file of a directory: one line, exit 2', async () => {
    const home = createHome();
    mkdirSync(join(home.dir, 'dir'));
    for (const args of [['import', join(home.dir, 'missing.jsonl')], ['import', join(home.dir, 'dir')], ['vars', 'create', '--file', join(home.dir, 'dir')]]) {
      const r = await runCli(args, { home, url: 'http://127.0.0.1:9' });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^chatflow: cannot read .*(no such file|directory)/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('names wherever an id is taken', () => {
  it('vars update NAME changes that variable; assistants get and update by details.name', async () => {
    const v = await addVariable('BY_NAME', 'old');
    const r = await cli(['vars', 'update', 'BY_NAME', '--value', 'new', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: v.id, value: 'new' });
    const a = (await call<Assistant>('POST', `${server.api}/assistants`, { details: { name: 'Support' } })).body;
    const got = await cli(['assistants', 'get', 'Support', '-o', 'json']);
    expect(got.exitCode, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).id).toBe(a.id);
    const up = await cli(['assistants', 'update', 'Support', '--temperature', '0.5', '-o', 'json']);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ id: a.id, details: { name: 'Support', temperature: 0.5 } });
  });

  it('a name two records share is exit 2, naming both ids', async () => {
    const x = await addVariable('SHARED');
    const y = await addVariable('SHARED');
    const r = await cli(['vars', 'update', 'SHARED', '--value', 'z']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(x.id);
    expect(r.stderr).toContain(y.id);
  });

  it('chatflows list on our service: name, id and message counts; get by id', async () => {
    await call('POST', `${server.api}/chatmessage/flow-count`, [
      { role: 'userMessage', content: 'a' },
      { role: 'apiMessage', content: 'b' },
    ]);
    const r = await cli(['chatflows', 'list', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toContainEqual({ id: 'flow-count', name: 'flow-count', messages: 2 });
    const got = await cli(['chatflows', 'get', 'flow-count', '-o', 'json']);
    expect(JSON.parse(got.stdout)).toEqual({ id: 'flow-count', name: 'flow-count', messages: 2 });
    const missing = await cli(['chatflows', 'get', 'no-such-flow']);
    expect(missing.exitCode).toBe(3);
  });

  it('messages list FLOW on our service asks for that list only: its chatflows are named by their ids', async () => {
    await call('POST', `${server.api}/chatmessage/flow-direct`, [{ role: 'userMessage', content: 'a' }]);
    const home = createHome();
    const requests = async () => {
      const r = await cli(['--debug', 'messages', 'list', 'flow-direct', '-o', 'json'], { home });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(1);
      const sent = r.stderr.split('\n').filter((line) => /^debug: (GET|POST|PUT|PATCH|DELETE) /.test(line));
      return sent.map((line) => line.split(' ').slice(1, 3).join(' ').replace(/\?.*/, ''));
    };
    // The first command to a server may ask which kind it is (then remembered); none asks for its chatflows.
    expect(await requests()).not.toContain(`GET ${server.url}/api/v1/chatflows`);
    expect(await requests()).toEqual([`GET ${server.url}/api/v1/chatmessage/flow-direct`]);
  });

  it('on Flowise, a chatflow argument takes its name: chatflows list shows names, messages list NAME lists that flow', async () => {
    const flowise = (args: string[]) => runCli(args, { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });
    const list = await flowise(['chatflows', 'list', '-o', 'json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toContainEqual({ id: CHATFLOW_A, name: 'peer-flow-A' });
    const msgs = await flowise(['messages', 'list', 'peer-flow-A', '-o', 'json']);
    expect(msgs.exitCode, msgs.stderr).toBe(0);
    const rows = JSON.parse(msgs.stdout) as { chatflowid: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((m) => m.chatflowid))).toEqual(new Set([CHATFLOW_A]));
  });
});

describe('enum values in any case, sent as the server spells them', () => {
  it('--chat-type internal matches INTERNAL messages; -o JSON is json; --order DESC', async () => {
    await call('POST', `${server.api}/chatmessage/flow-case`, [
      { role: 'userMessage', content: 'in', chatType: 'INTERNAL' },
      { role: 'userMessage', content: 'ex', chatType: 'EXTERNAL' },
    ]);
    const r = await cli(['messages', 'list', 'flow-case', '--chat-type', 'internal', '-o', 'JSON', '--order', 'DESC']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { content: string }[]).map((m) => m.content)).toEqual(['in']);
  });

  it('vars create --type RUNTIME stores runtime; assistants --tool FILE_SEARCH stores file_search', async () => {
    const v = await cli(['vars', 'create', '--name', 'CASED', '--type', 'RUNTIME', '-o', 'json']);
    expect(JSON.parse(v.stdout).type).toBe('runtime');
    const a = await cli(['assistants', 'create', '--name', 'cased', '--tool', 'FILE_SEARCH', '--type', 'custom', '-o', 'json']);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ type: 'CUSTOM', details: { tools: ['file_search'] } });
  });
});

describe('diff --exit-code', () => {
  it('0 when both sides match, 1 when they differ', async () => {
    const home = createHome();
    const opts = { home };
    const sides = ['--from', server.url, '--to', other.url];
    for (const v of await variables()) await call('DELETE', `${server.api}/variables/${v.id}`);
    for (const a of (await call<Assistant[]>('GET', `${server.api}/assistants`)).body) await call('DELETE', `${server.api}/assistants/${a.id}`);
    const same = await runCli(['variables', 'diff', ...sides, '--exit-code', '-o', 'json'], opts);
    expect(same.exitCode, same.stderr).toBe(0);
    await addVariable('ONLY_HERE');
    const differ = await runCli(['variables', 'diff', ...sides, '--exit-code', '-o', 'json'], opts);
    expect(differ.exitCode, differ.stderr).toBe(1);
    expect(JSON.parse(differ.stdout)).toContainEqual(expect.objectContaining({ name: 'ONLY_HERE', action: 'create' }));
    // Without the flag a difference is still 0 (a report, not a check).
    expect((await runCli(['variables', 'diff', ...sides, '-o', 'json'], opts)).exitCode).toBe(0);
    expect((await runCli(['assistants', 'diff', ...sides, '--exit-code', '-o', 'json'], opts)).exitCode).toBe(0);
    await call('POST', `${other.api}/assistants`, { details: { name: 'only-there' } });
    expect((await runCli(['assistants', 'diff', ...sides, '--exit-code', '-o', 'json'], opts)).exitCode).toBe(1);
  });
});

describe('import: every bad line named, the rest imported with --continue-on-error', () => {
  const variable = (n: number, value: string) =>
    `{"resource":"variable","data":{"id":"0e8b1a64-7b5a-4f5e-9d5e-2a7f6f1d9c${String(n).padStart(2, '0')}","name":"IMP_${n}","value":${value}}}`;
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const big = JSON.stringify('x'.repeat(1_000_000));

  it('too deep, too big, wrong types: exit 2 naming the line; --continue-on-error imports the rest and exits 1 with a summary', async () => {
    const home = createHome();
    const file = join(home.dir, 'bad.jsonl');
    writeFileSync(file, [variable(1, '"a"'), variable(2, deep), variable(3, big), variable(4, '{"not":"a string"}'), variable(5, '"e"')].join('\n'));
    const deepOnly = join(home.dir, 'deep.jsonl');
    writeFileSync(deepOnly, [variable(1, '"a"'), variable(2, deep)].join('\n'));
    const stop = await cli(['import', deepOnly]);
    expect(stop.exitCode).toBe(2);
    // (Sent as the line holds it: the service refuses it, with the line before it, its batch.)
    expect(stop.stderr).toContain('the server refused line 2 (variables): nested deeper than 100 levels; nothing from line 1 on was imported');
    expect(stop.stderr).not.toContain('Maximum call stack');
    const go = await cli(['import', file, '--continue-on-error', '-o', 'json']);
    expect(go.exitCode, go.stderr).toBe(1);
    expect(go.stderr).toContain('line 2: skipped: nested deeper than 100 levels');
    expect(go.stderr).toMatch(/line 3: skipped: too big to send/);
    expect(go.stderr).toMatch(/line 4: skipped: .*value/);
    expect(go.stderr).toContain('3 bad lines skipped (line 2, 3, 4); the rest was imported');
    const names = (await variables()).map((v) => v.name).filter((n) => n.startsWith('IMP_'));
    expect(names.sort()).toEqual(['IMP_1', 'IMP_5']);
  });

  // A child process on a loaded machine: the default 30 s is not enough for start, 6,000 lines and the signal.
  it('Ctrl-C during an import says what got in', { timeout: 90_000 }, async () => {
    // A server that has no variables, takes the variables' stream and never answers the messages'.
    let posts = 0;
    let second: () => void = () => undefined;
    const secondArrived = new Promise<void>((resolve) => (second = resolve));
    const hung = createServer((req, res) => {
      if (req.method === 'POST' && ++posts === 2) second();
      const answered = posts === 1 || req.method !== 'POST';
      req.resume();
      req.on('end', () => {
        if (req.method === 'POST' && answered) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"affected":5000}');
        } else if (req.method !== 'POST') {
          // No variables there yet (the import asks for their names first).
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('[]');
        }
      });
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    try {
      const home = createHome();
      const file = join(home.dir, 'many.jsonl');
      const lines = [];
      for (let i = 0; i < 5000; i++) lines.push(`{"resource":"variable","data":{"id":"0e8b1a64-7b5a-4f5e-9d5e-${String(i).padStart(12, '0')}","name":"V${i}"}}`);
      for (let i = 0; i < 1000; i++) lines.push(`{"resource":"message","chatflowid":"f","data":{"id":"m${i}","role":"userMessage"}}`);
      writeFileSync(file, lines.join('\n'));
      const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
      const proc = spawnCli(['import', file, '--timeout', '60'], { home, url });
      await secondArrived;
      // The first answer reaches the CLI at once; give a loaded machine time to read it.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      proc.kill('SIGINT');
      const r = await proc;
      expect(r.exitCode).toBe(130);
      expect(String(r.stderr)).toMatch(/interrupted at line \d+: imported 5,000 variables/);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  });
});

describe('Ctrl-C during an export', () => {
  it('leaves no file, whole or partial, and says so', { timeout: 90_000 }, async () => {
    // A server (Flowise-like: no OpenAPI document) that starts the list of variables and never ends it.
    let listing: () => void = () => undefined;
    const listed = new Promise<void>((resolve) => (listing = resolve));
    const hung = createServer((req, res) => {
      if (req.url?.endsWith('/variables')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[{"id":"v1","name":"A","value":"1","type":"static"}');
        listing();
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"message":"not found"}');
      }
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    try {
      const home = createHome();
      const out = join(home.dir, 'all.jsonl');
      const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
      const proc = spawnCli(['export', '--out', out, '--resources', 'variable', '--timeout', '60'], { home, url });
      await listed;
      await new Promise((resolve) => setTimeout(resolve, 500));
      proc.kill('SIGINT');
      const r = await proc;
      expect(r.exitCode).toBe(130);
      expect(String(r.stderr)).toContain(`export interrupted: nothing was written to ${out}`);
      expect(readdirSync(home.dir).filter((name) => name.startsWith('all.jsonl'))).toEqual([]);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  });
});

describe('errors in the words the user typed', () => {
  it("a server's field becomes the flag, its route the command", async () => {
    const tooLong = await cli(['vars', 'set', 'LONG_TYPE', 'v', '--type', 'x'.repeat(70)]);
    expect(tooLong.exitCode).toBe(2);
    expect(tooLong.stderr).toBe('chatflow: --type must be at most 64 characters\n');
    const home = createHome();
    const body = join(home.dir, 'a.json');
    writeFileSync(body, '{"details":{"temperature":"hot"}}');
    const temp = await cli(['assistants', 'create', '--name', 'hot', '--file', body]);
    expect(temp.stderr).toMatch(/^chatflow: --temperature must be /);
    await call('POST', `${server.api}/chatmessage/flow-rated`, [{ id: 'rated-1', role: 'apiMessage', content: 'a' }]);
    const first = await cli(['feedback', 'create', '--message-id', 'rated-1', '--rating', 'up', '-o', 'json']);
    const id = JSON.parse(first.stdout).id as string;
    const second = await cli(['feedback', 'create', '--message-id', 'rated-1', '--rating', 'down']);
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain(`change it with 'chatflow feedback update ${id}'`);
    expect(second.stderr).not.toMatch(/PUT|\/feedback/);
  });
});

describe('errors the client makes, in the words of the command', () => {
  it('a timeout, an unreadable answer, a bare status, a refused key: the command and its flags, never METHOD /path', async () => {
    const hung: import('node:http').ServerResponse[] = [];
    const odd = createServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/api/v1/variables')) return void hung.push(res);
      if (req.url?.startsWith('/api/v1/assistants')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"details": nope');
      }
      if (req.url?.startsWith('/api/v1/upsert-history')) {
        // An older service of ours without the route: its message names the route.
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ statusCode: 404, success: false, message: `no route ${req.method} ${req.url}` }));
      }
      // No chatflow names here (a server without them): the argument is taken as the id.
      res.writeHead(req.url?.startsWith('/api/v1/chatflows') ? 404 : 500);
      res.end();
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    try {
      const home = createHome();
      const run = (args: string[]) => runCli([...args, '--timeout', '1'], { home, url });
      const slow = await run(['vars', 'ls']);
      expect(slow.exitCode).toBe(5);
      expect(slow.stderr).toBe(`chatflow: variables list: ${url} did not answer within 1s (--timeout)\n`);
      const unreadable = await run(['assistants', 'get', '00000000-0000-4000-8000-000000000000']);
      expect(unreadable.exitCode).toBe(1);
      expect(unreadable.stderr).toBe("chatflow: assistants get: the server's answer to reading assistants is not JSON\n");
      const failed = await run(['feedback', 'list', 'flow-x']);
      expect(failed.exitCode).toBe(1);
      expect(failed.stderr).toBe('chatflow: feedback list: the server failed reading feedback (HTTP 500)\n');
      const noRoute = await run(['upsert-history', 'list']);
      expect(noRoute.exitCode).toBe(3);
      expect(noRoute.stderr).toBe('chatflow: upsert-history list: not found (HTTP 404) when reading upsert history\n');
      const forbidden = await runCli(['assistants', 'list'], { home, url: fx.url, env: { CHATFLOW_API_KEY: fx.readOnlyKey } });
      expect(forbidden.exitCode).toBe(4);
      expect(forbidden.stderr).toBe('chatflow: assistants list: forbidden: the API key may not read assistants\n');
      for (const r of [slow, unreadable, failed, noRoute, forbidden]) expect(r.stderr).not.toMatch(/\b(GET|POST|PUT|DELETE) \/|\/api\/v1/);
      // `chatflow api` is the one command where the user typed the route: it stays.
      const raw = await run(['api', 'GET', '/variables']);
      expect(raw.exitCode).toBe(5);
      expect(raw.stderr).toMatch(/did not answer GET \/variables within 1s/);
    } finally {
      for (const res of hung) res.destroy();
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });
});

describe('connections that fail say what to do', () => {
  it('an unknown host: check --url; a certificate not trusted: NODE_EXTRA_CA_CERTS, which then works', async () => {
    const { readFileSync } = await import('node:fs');
    const https = await import('node:https');
    const { fileURLToPath } = await import('node:url');
    const tls = new URL('../helpers/tls/', import.meta.url);
    const secure = https.createServer({ cert: readFileSync(new URL('cert.pem', tls)), key: readFileSync(new URL('key.pem', tls)) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    try {
      const home = createHome();
      const host = await runCli(['vars', 'ls', '--timeout', '5'], { home, url: 'http://no-such-host.invalid:3000' });
      expect(host.exitCode).toBe(5);
      expect(host.stderr).toBe('chatflow: variables list: cannot reach http://no-such-host.invalid:3000 (host not found): check the host name in --url\n');
      const untrusted = await runCli(['vars', 'ls'], { home, url });
      expect(untrusted.exitCode).toBe(5);
      expect(untrusted.stderr).toMatch(/^chatflow: variables list: cannot reach https:\/\/127\.0\.0\.1:\d+ \(.*self-signed certificate\): trust its CA with NODE_EXTRA_CA_CERTS=<ca\.pem>\n$/);
      const trusted = await runCli(['vars', 'ls', '-o', 'json'], { home, url, env: { NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('cert.pem', tls)) } });
      expect(trusted.exitCode, trusted.stderr).toBe(0);
      expect(JSON.parse(trusted.stdout)).toEqual([]);
    } finally {
      secure.closeAllConnections();
      await new Promise((resolve) => secure.close(resolve));
    }
  });
});

describe('one identity for variables: by name', () => {
  it('after a sync, an import of the same data makes no duplicates, and vars set still works', async () => {
    const home = createHome();
    for (const v of await variables(other)) await call('DELETE', `${other.api}/variables/${v.id}`);
    await addVariable('IDENTITY', 'one');
    const sync = await runCli(['variables', 'sync', '--from', server.url, '--to', other.url, '--yes', '-o', 'json'], { home });
    expect(sync.exitCode, sync.stderr).toBe(0);
    const file = join(home.dir, 'vars.jsonl');
    expect((await runCli(['export', '--resources', 'variables', '--out', file], { home, url: server.url })).exitCode).toBe(0);
    const imported = await runCli(['import', file, '-o', 'json'], { home, url: other.url });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect((await variables(other)).filter((v) => v.name === 'IDENTITY')).toHaveLength(1);
    const set = await runCli(['vars', 'set', 'IDENTITY', 'two'], { home, url: other.url });
    expect(set.exitCode, set.stderr).toBe(0);
  });
});

describe('one identity: ids kept by sync, names kept unique by import', () => {
  const assistants = async (s: TestServer) => (await call<Assistant[]>('GET', `${s.api}/assistants`)).body;
  const addAssistant = async (name: string, s: TestServer) => (await call<Assistant>('POST', `${s.api}/assistants`, { details: { name } })).body;

  it('variables sync and assistants sync create under the source ids where the target takes them', async () => {
    const home = createHome();
    const v = await addVariable('KEEP_ID', 'x');
    const a = await addAssistant('keep-id-assistant', server);
    for (const kind of ['variables', 'assistants']) {
      const r = await runCli([kind, 'sync', '--from', server.url, '--to', other.url, '--yes', '-o', 'json'], { home });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    expect((await variables(other)).find((x) => x.name === 'KEEP_ID')?.id).toBe(v.id);
    expect((await assistants(other)).find((x) => x.details?.name === 'keep-id-assistant')?.id).toBe(a.id);
  });

  it('onto Flowise, which makes its own ids, sync still creates (under a new id)', async () => {
    const home = createHome();
    const v = await addVariable('TO_FLOWISE', 'y');
    const r = await runCli(['variables', 'sync', '--from', server.url, '--to', fx.url, '--to-api-key', fx.apiKey, '--yes', '-o', 'json'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = await runCli(['vars', 'get', 'TO_FLOWISE', '-o', 'json'], { home, url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });
    expect(got.exitCode, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ name: 'TO_FLOWISE', value: 'y' });
    expect(JSON.parse(got.stdout).id).not.toBe(v.id);
  });

  it('an import skips an assistant whose details.name the target has under another id, and says so', async () => {
    const home = createHome();
    const theirs = await addAssistant('clash-assistant', other);
    const ours = await addAssistant('clash-assistant', server);
    const fresh = await addAssistant('fresh-assistant', server);
    const file = join(home.dir, 'assistants.jsonl');
    expect((await runCli(['export', '--resources', 'assistants', '--out', file], { home, url: server.url })).exitCode).toBe(0);
    const r = await runCli(['import', file, '-o', 'json'], { home, url: other.url });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`assistant "clash-assistant": the target has one of that name (id ${theirs.id}); skipped`);
    const there = await assistants(other);
    expect(there.filter((x) => x.details?.name === 'clash-assistant').map((x) => x.id)).toEqual([theirs.id]);
    expect(there.find((x) => x.details?.name === 'fresh-assistant')?.id).toBe(fresh.id);
    expect(there.map((x) => x.id)).not.toContain(ours.id);
  });
});

describe("the README's completion lines in fresh shells", () => {
  it('zsh without compinit in .zshrc: no compdef error, chatflow completes; bash without bash-completion', async () => {
    const { execa } = await import('execa');
    const { BIN } = await import('../helpers/cli.js');
    const home = createHome();
    const env = { ...home.env, PATH: process.env.PATH };
    const zsh = await execa('zsh', ['-f', '-c', `source <(node ${BIN} completion zsh) && print -r -- $_comps[chatflow]`], { env, extendEnv: false, reject: false });
    expect(zsh.stderr).toBe('');
    expect(zsh.stdout.trim()).toBe('_chatflow');
    const bash = await execa('bash', ['--norc', '--noprofile', '-c', `source <(node ${BIN} completion bash) && complete -p chatflow`], { env, extendEnv: false, reject: false });
    expect(bash.stderr).toBe('');
    expect(bash.stdout).toContain('-F _chatflow chatflow');
  });
});

describe('completion offers each value set once', () => {
  it('stats --by offers day and hour only; d, days, h and hours are accepted', async () => {
    const home = createHome();
    const offered = await runCli(['__complete', '--', 'stats', 'flow', '--by', ''], { home });
    expect(offered.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort()).toEqual(['day', 'hour']);
    const hours = await runCli(['stats', 'flow-none', '--by', 'HOURS', '-o', 'json'], { home, url: server.url });
    expect(hours.exitCode, hours.stderr).toBe(0);
    const wrong = await runCli(['stats', 'flow-none', '--by', 'week'], { home, url: server.url });
    expect(wrong.stderr).toBe('chatflow: invalid --by "week": use day or hour\n');
  });
});
