// `chatflow chatflows export|import|diff|sync` (issue 33) through the built CLI, between the Flowise
// fixture (chatflows with credential ids) and our service (which keeps chatflows, no credentials).
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, runCli, type CliHome, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { runInPty } from '../helpers/pty.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const OPENAI = 'cccccccc-0000-0000-0000-000000000001'; // the fixture's seeded credential "OpenAI main" (openAIApi)
const flow = (model: string, credential = OPENAI) => ({
  nodes: [
    { id: 'chatOpenAI_0', position: { x: 10, y: 20 }, data: { id: 'chatOpenAI_0', name: 'chatOpenAI', credential, inputs: { modelName: model, FLOWISE_CREDENTIAL_ID: credential } } },
    { id: 'llmChain_0', position: { x: 300, y: 20 }, data: { id: 'llmChain_0', name: 'llmChain', inputs: { model: '{{chatOpenAI_0.data.instance}}' } } },
  ],
  edges: [{ id: 'e1', source: 'chatOpenAI_0', target: 'llmChain_0' }],
});

let fx: FlowiseFixture;
let svc: TestServer;
let home: CliHome;
let supportId: string;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { home, ...opts });
const onFlowise = ['--url', '', '--api-key', ''];
const flowise = (args: string[], opts: CliOptions = {}) => cli([...args, ...onFlowise], opts);
const service = (args: string[], opts: CliOptions = {}) => cli([...args, '--url', svc.url], opts);
const dir = () => mkdtempSync(join(tmpdir(), 'chatflow-flows-'));
const read = (d: string, f: string) => readFileSync(join(d, f), 'utf8');
const fxAuth = () => ({ authorization: `Bearer ${fx.apiKey}` });

async function flowiseFlows(): Promise<Record<string, unknown>[]> {
  return (await call('GET', `${fx.url}/api/v1/chatflows`, undefined, fxAuth())).body;
}
async function serviceFlows(): Promise<Record<string, unknown>[]> {
  return (await call('GET', `${svc.api}/chatflows`)).body;
}

beforeAll(async () => {
  [fx, svc] = await Promise.all([startFlowiseFixture(), startTestServer()]);
  onFlowise[1] = fx.url;
  onFlowise[3] = fx.apiKey;
  home = createHome();
  const r = await call('POST', `${fx.url}/api/v1/chatflows`, {
    name: 'Support bot',
    type: 'CHATFLOW',
    flowData: JSON.stringify(flow('gpt-4o')),
    chatbotConfig: JSON.stringify({ welcomeMessage: 'Hello!' }),
    category: 'support',
    apikeyid: 'key-bound-on-this-server',
  }, fxAuth());
  expect(r.status, r.text).toBe(200);
  supportId = r.body.id;
});
afterAll(async () => {
  await Promise.all([fx?.close(), svc?.dispose()]);
});

describe('chatflows export', () => {
  it('writes one pretty, key-sorted file per chatflow: flowData an object, credentials by name and kind, no server-only fields', async () => {
    const d = dir();
    const r = await flowise(['chatflows', 'export', '--dir', d, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(d).sort()).toEqual(['Support bot.json', 'peer-flow-A.json', 'peer-flow-B.json']);
    expect(JSON.parse(r.stdout)).toContainEqual({ name: 'Support bot', file: 'Support bot.json', result: 'created', id: supportId });
    const text = read(d, 'Support bot.json');
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    const doc = JSON.parse(text);
    expect(Object.keys(doc)).toEqual(['name', 'type', 'category', 'flowData', 'chatbotConfig', 'id']);
    expect(doc.chatbotConfig).toEqual({ welcomeMessage: 'Hello!' });
    const node = doc.flowData.nodes[0];
    expect(Object.keys(node)).toEqual(['data', 'id', 'position']);
    expect(node.data.credential).toEqual({ kind: 'openAIApi', name: 'OpenAI main' });
    expect(node.data.inputs.FLOWISE_CREDENTIAL_ID).toEqual({ kind: 'openAIApi', name: 'OpenAI main' });
    expect(text).not.toContain(OPENAI);
    for (const gone of ['createdDate', 'updatedDate', 'workspaceId', 'apikeyid', 'key-bound-on-this-server']) expect(text).not.toContain(gone);
  });

  it('a second export of unchanged flows is byte-identical and touches no file; a change rewrites only its file, as a one-line diff', async () => {
    const d = dir();
    expect((await flowise(['chatflows', 'export', '--dir', d])).exitCode).toBe(0);
    const before = Object.fromEntries(readdirSync(d).map((f) => [f, [read(d, f), statSync(join(d, f)).mtimeMs]]));
    const again = await flowise(['chatflows', 'export', '--dir', d, '-o', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { result: string }[]).map((x) => x.result)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(Object.fromEntries(readdirSync(d).map((f) => [f, [read(d, f), statSync(join(d, f)).mtimeMs]]))).toEqual(before);

    const other = flow('gpt-4.1');
    expect((await call('PUT', `${fx.url}/api/v1/chatflows/${supportId}`, { flowData: JSON.stringify(other) }, fxAuth())).status).toBe(200);
    const changed = await flowise(['chatflows', 'export', '--dir', d]);
    expect(changed.stderr).toContain('exported 3 chatflows to');
    expect(changed.stderr).toContain('0 new, 1 changed, 2 unchanged');
    const [was, now] = [String(before['Support bot.json']![0]).split('\n'), read(d, 'Support bot.json').split('\n')];
    expect(now.length).toBe(was.length);
    expect(now.filter((line, i) => line !== was[i])).toEqual(['            "modelName": "gpt-4.1"']);
    expect((await call('PUT', `${fx.url}/api/v1/chatflows/${supportId}`, { flowData: JSON.stringify(flow('gpt-4o')) }, fxAuth())).status).toBe(200);
  });

  it('a chatflow renamed on the server leaves its old file, named on stderr; --prune deletes it', async () => {
    const d = dir();
    expect((await flowise(['chatflows', 'export', '--dir', d])).exitCode).toBe(0);
    writeFileSync(join(d, 'notes.json'), '{"not": "a chatflow"}');
    const B = 'c3855e34-2c0b-4e77-8e07-693995a50ad0';
    expect((await call('PUT', `${fx.url}/api/v1/chatflows/${B}`, { name: 'peer-flow-B2' }, fxAuth())).status).toBe(200);
    try {
      const kept = await flowise(['chatflows', 'export', '--dir', d]);
      expect(kept.exitCode, kept.stderr).toBe(0);
      expect(kept.stderr).toContain(`1 file in ${d} names no chatflow of this server (peer-flow-B.json): an import would make it again; --prune deletes it`);
      expect(readdirSync(d)).toContain('peer-flow-B.json');
      const pruned = await flowise(['chatflows', 'export', '--dir', d, '--prune', '-o', 'json']);
      expect(pruned.exitCode, pruned.stderr).toBe(0);
      expect(JSON.parse(pruned.stdout)).toContainEqual({ name: 'peer-flow-B', file: 'peer-flow-B.json', result: 'deleted', id: B });
      expect(readdirSync(d).sort()).toEqual(['Support bot.json', 'notes.json', 'peer-flow-A.json', 'peer-flow-B2.json']);
      expect((await flowise(['chatflows', 'export', 'Support bot', '--dir', d, '--prune'])).exitCode).toBe(2);
    } finally {
      await call('PUT', `${fx.url}/api/v1/chatflows/${B}`, { name: 'peer-flow-B' }, fxAuth());
    }
  });

  it('exports only the chatflows named (by name or id), under the same file names', async () => {
    const d = dir();
    const r = await flowise(['chatflows', 'export', 'Support bot', '--dir', d, '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('Support bot.json\n');
    expect(readdirSync(d)).toEqual(['Support bot.json']);
  });
});

describe('chatflows import', () => {
  let files: string;
  beforeAll(async () => {
    files = dir();
    expect((await flowise(['chatflows', 'export', '--dir', files])).exitCode).toBe(0);
  });

  it('--dry-run shows what would be created and changes nothing; then creates, and a second run leaves all as they are', async () => {
    const dry = await service(['chatflows', 'import', files, '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { name: string; action: string }[]).map((e) => [e.name, e.action])).toEqual([
      ['peer-flow-A', 'create'],
      ['peer-flow-B', 'create'],
      ['Support bot', 'create'],
    ]);
    expect(dry.stderr).toMatch(/dry run: nothing was changed on \S+ \(3 changes planned\)/);
    expect(await serviceFlows()).toEqual([]);

    const r = await service(['chatflows', 'import', files], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('  ✓ created chatflow Support bot\n');
    expect(r.stderr).toContain(`applied 3 changes to ${svc.url}`);
    const again = await service(['chatflows', 'import', files]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain("Nothing to change: the target's chatflows match the source.");
  });

  it('the service keeps the flow as the file has it: its export differs from the source only by the ids', async () => {
    const back = dir();
    expect((await service(['chatflows', 'export', '--dir', back])).exitCode).toBe(0);
    for (const f of readdirSync(files)) {
      const strip = (t: string) => t.replace(/\n {2}"id": "[^"]*"\n/, '\n');
      expect(read(back, f), f).not.toBe(read(files, f));
      expect(strip(read(back, f)), f).toBe(strip(read(files, f)));
    }
  });

  it('an update asks first (refused without a terminal unless --yes); --keep-ids creates under the file ids', async () => {
    const one = dir();
    expect((await flowise(['chatflows', 'export', 'Support bot', '--dir', one])).exitCode).toBe(0);
    const doc = JSON.parse(read(one, 'Support bot.json'));
    doc.flowData.nodes[0].data.inputs.modelName = 'gpt-4o-mini';
    doc.name = 'Support bot';
    const file = join(one, 'Support bot.json');
    writeFileSync(file, JSON.stringify(doc));
    const refused = await service(['chatflows', 'import', file]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Apply 1 change to');
    expect(refused.stderr).toContain('pass --yes');
    const r = await service(['chatflows', 'import', file, '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({
        name: 'Support bot',
        action: 'update',
        result: 'updated',
        changes: [{ field: 'flowData.nodes[chatOpenAI_0].data.inputs.modelName', from: 'gpt-4o', to: 'gpt-4o-mini' }],
      }),
    ]);

    doc.name = 'Support bot (copy)';
    writeFileSync(file, JSON.stringify(doc));
    const kept = await service(['chatflows', 'import', file, '--keep-ids']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect((await call('GET', `${svc.api}/chatflows/${supportId}`)).body).toMatchObject({ name: 'Support bot (copy)' });

    // With --keep-ids the file's id finds its chatflow whatever its name: renamed, not made twice.
    for (const name of ['Support bot (v2)', 'Support bot (copy)']) {
      writeFileSync(file, JSON.stringify({ ...doc, name }));
      const renamed = await service(['chatflows', 'import', file, '--keep-ids', '--yes', '-o', 'json']);
      expect(renamed.exitCode, renamed.stderr).toBe(0);
      expect(JSON.parse(renamed.stdout)).toEqual([expect.objectContaining({ name, action: 'update', result: 'updated', targetId: supportId })]);
      expect((await call('GET', `${svc.api}/chatflows/${supportId}`)).body).toMatchObject({ name });
    }
    expect((await serviceFlows()).filter((f) => String(f.name).startsWith('Support bot (')).length).toBe(1);
  });

  it('on a terminal at 80 columns: the plan by path, a question before the update, each node changed named once', async () => {
    const one = dir();
    expect((await flowise(['chatflows', 'export', 'peer-flow-A', '--dir', one])).exitCode).toBe(0);
    const file = join(one, 'peer-flow-A.json');
    const doc = JSON.parse(read(one, 'peer-flow-A.json'));
    doc.name = 'Terminal flow';
    doc.flowData.nodes = [{ id: 'llm_0', data: { inputs: { modelName: 'gpt-4o', temperature: 0.2 } } }];
    doc.chatbotConfig = { welcomeMessage: 'Hi there' };
    writeFileSync(file, JSON.stringify(doc));
    expect((await service(['chatflows', 'import', file, '--yes'])).exitCode).toBe(0);
    doc.flowData.nodes[0].data.inputs = { modelName: 'gpt-4.1', temperature: 0.7 };
    writeFileSync(file, JSON.stringify(doc));
    const r = await runInPty(['chatflows', 'import', file, '--url', svc.url], { home, columns: 80, env: { NO_COLOR: '1' }, keys: [{ when: /Apply 1 change/, text: 'y\r' }] });
    expect(r.exitCode, r.screen).toBe(0);
    const screen = r.screen.replaceAll(svc.url, 'http://service');
    expect(screen).toContain(
      '  ~ Terminal flow  update\n' +
        '      flowData.nodes[llm_0].data.inputs.modelName: "gpt-4o" → "gpt-4.1"\n' +
        '      flowData.nodes[llm_0].data.inputs.temperature: 0.2 → 0.7\n\n' +
        '0 to create, 1 to update, 0 unchanged\n',
    );
    expect(screen).toContain('✓ updated chatflow Terminal flow (node llm_0)\n');
    expect(screen).toContain('applied 1 change to http://service');
    const made = (await serviceFlows()).find((f) => f.name === 'Terminal flow')!;
    expect((await call('DELETE', `${svc.api}/chatflows/${String(made.id)}`)).status).toBe(200);
  });

  it("takes a file of Flowise's own Export ({nodes, edges}), named after the file", async () => {
    const d = dir();
    writeFileSync(join(d, 'From the UI.json'), JSON.stringify({ nodes: [{ id: 'llm_0', data: { inputs: {} } }], edges: [] }));
    const r = await service(['chatflows', 'import', join(d, 'From the UI.json'), '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const made = (await serviceFlows()).find((f) => f.name === 'From the UI')!;
    expect(made).toMatchObject({ type: 'CHATFLOW', flowData: '{"nodes":[{"id":"llm_0","data":{"inputs":{}}}],"edges":[]}' });
    expect((await call('DELETE', `${svc.api}/chatflows/${String(made.id)}`)).status).toBe(200);
  });

  it('into Flowise: refuses, listing them, when the target lacks credentials the files use; --keep-ids is a usage error there', async () => {
    const d = dir();
    const doc = JSON.parse(read(files, 'Support bot.json'));
    doc.name = 'Claude bot';
    doc.flowData.nodes[0].data.credential = { kind: 'anthropicApi', name: 'Anthropic prod' };
    writeFileSync(join(d, 'claude.json'), JSON.stringify(doc));
    const before = await flowiseFlows();
    const r = await flowise(['chatflows', 'import', d, '--yes']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('lacks 1 credential the chatflows use: anthropicApi "Anthropic prod" (used by Claude bot)');
    expect(await flowiseFlows()).toEqual(before);
    const ids = await flowise(['chatflows', 'import', d, '--keep-ids', '--yes']);
    expect(ids.exitCode).toBe(2);
    expect(ids.stderr).toContain('--keep-ids: Flowise makes its own chatflow ids');

    const bad = dir();
    writeFileSync(join(bad, 'x.json'), '{"name": "x", "flowData": "nodes"}');
    const refused = await flowise(['chatflows', 'import', bad]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`${join(bad, 'x.json')}: "flowData" must be an object (nodes and edges); nothing was changed`);
    // Flowise answers a flow without nodes with a 500 ("nodes is not iterable"): refused before any change.
    writeFileSync(join(bad, 'x.json'), '{"name": "x", "flowData": {}}');
    expect((await flowise(['chatflows', 'import', bad])).stderr).toContain('"flowData" must be an object (nodes and edges)');
  });
});

describe('chatflows diff|sync', () => {
  const sides = () => ['--from', svc.url, '--to', fx.url, '--to-api-key', fx.apiKey];

  it('diff names the paths that differ, ids and credential ids aside; --exit-code says whether they differ', async () => {
    // The service holds "Support bot (copy)" from the import tests; give it a Support bot as on Flowise but another model.
    const d = dir();
    expect((await flowise(['chatflows', 'export', 'Support bot', '--dir', d])).exitCode).toBe(0);
    const doc = JSON.parse(read(d, 'Support bot.json'));
    doc.flowData.nodes[0].position.x = 99;
    writeFileSync(join(d, 'Support bot.json'), JSON.stringify(doc));
    expect((await service(['chatflows', 'import', join(d, 'Support bot.json'), '--yes'])).exitCode).toBe(0);

    const r = await cli(['chatflows', 'diff', 'Support bot', ...sides()], { tty: true, env: { NO_COLOR: '1', COLUMNS: '100' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.replaceAll(svc.url, 'http://service').replaceAll(fx.url, 'http://flowise')).toBe(
      'chatflows: http://service → http://flowise\n\n' +
        '  ~ Support bot  update\n' +
        '      flowData.nodes[chatOpenAI_0].position.x: 10 → 99\n\n' +
        '0 to create, 1 to update, 0 unchanged\n',
    );
    expect((await cli(['chatflows', 'diff', 'Support bot', ...sides(), '--exit-code', '-q'])).exitCode).toBe(1);
    expect((await cli(['chatflows', 'diff', 'peer-flow-A', ...sides(), '--exit-code', '-q'])).exitCode).toBe(0);
    const none = await cli(['chatflows', 'diff', 'No such flow', ...sides()]);
    expect(none.exitCode).toBe(3);
    expect(none.stderr).toContain('no chatflow named "No such flow" on either side');
  });

  it('sync promotes to Flowise with the target credential ids; then the two match', async () => {
    const r = await cli(['chatflows', 'sync', 'Support bot', 'Support bot (copy)', ...sides(), '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string; result?: string }[]).map((e) => [e.name, e.result])).toEqual([
      ['Support bot (copy)', 'created'],
      ['Support bot', 'updated'],
    ]);
    const flows = await flowiseFlows();
    const copy = flows.find((f) => f.name === 'Support bot (copy)')!;
    const data = JSON.parse(String(copy.flowData));
    expect(data.nodes[0].data.credential).toBe(OPENAI);
    expect(data.nodes[0].data.inputs.FLOWISE_CREDENTIAL_ID).toBe(OPENAI);
    expect(data.nodes[0].data.inputs.modelName).toBe('gpt-4o-mini');
    expect(JSON.parse(String(flows.find((f) => f.id === supportId)!.flowData)).nodes[0].position.x).toBe(99);
    expect((await cli(['chatflows', 'diff', ...sides(), '--exit-code', '-q'])).exitCode).toBe(0);
  });

  it('--from a directory: the files as git keeps them, against a server', async () => {
    const d = dir();
    expect((await flowise(['chatflows', 'export', '--dir', d])).exitCode).toBe(0);
    const doc = JSON.parse(read(d, 'Support bot.json'));
    doc.chatbotConfig.welcomeMessage = 'Hi from git';
    writeFileSync(join(d, 'Support bot.json'), JSON.stringify(doc));
    const diff = await cli(['chatflows', 'diff', '--from', `${d}/`, '--to', svc.url, '--exit-code', '-o', 'json']);
    expect(diff.exitCode, diff.stderr).toBe(1);
    expect((JSON.parse(diff.stdout) as { name: string; action: string; changes?: unknown }[]).filter((e) => e.action !== 'unchanged')).toEqual([
      expect.objectContaining({ name: 'Support bot', action: 'update', changes: [{ field: 'chatbotConfig.welcomeMessage', from: 'Hello!', to: 'Hi from git' }] }),
    ]);
    expect((await cli(['chatflows', 'sync', 'Support bot', '--from', `${d}/`, '--to', svc.url, '--yes'])).exitCode).toBe(0);
    expect((await cli(['chatflows', 'diff', '--from', `${d}/`, '--to', svc.url, '--exit-code', '-q'])).exitCode).toBe(0);
    // A bare word stays a profile's name, even where a directory of that name exists.
    const word = await cli(['chatflows', 'diff', '--from', 'flows', '--to', svc.url]);
    expect(word.exitCode).toBe(2);
    expect(word.stderr).toContain('flows');
  });
});

describe('the whole instance: export and import carry the chatflows', () => {
  it('from Flowise: chatflow lines name credentials by name and kind; restored into our service, they match Flowise again', async () => {
    const r = await flowise(['export', '--resources', 'chatflows,messages']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { resource: string; data: { name: string; flowData: string } });
    const flows = lines.filter((l) => l.resource === 'chatflow');
    expect(flows.map((l) => l.data.name).sort()).toEqual((await flowiseFlows()).map((f) => String(f.name)).sort());
    expect(lines.findIndex((l) => l.resource !== 'chatflow')).toBe(flows.length);
    const support = flows.find((l) => l.data.name === 'Support bot')!;
    expect(JSON.parse(support.data.flowData).nodes[0].data.credential).toEqual({ name: 'OpenAI main', kind: 'openAIApi' });
    expect(r.stdout).not.toContain(OPENAI);

    const fresh = await startTestServer();
    try {
      const imported = await runCli(['import', '-', '-o', 'json'], { home, url: fresh.url, input: r.stdout });
      expect(imported.exitCode, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)[0]).toEqual({ resource: 'chatflows', records: flows.length, imported: flows.length, existing: 0 });
      const diff = await cli(['chatflows', 'diff', '--from', fresh.url, '--to', fx.url, '--to-api-key', fx.apiKey, '--exit-code', '-o', 'json']);
      expect(diff.exitCode, diff.stdout).toBe(0);
      expect(new Set((JSON.parse(diff.stdout) as { action: string }[]).map((e) => e.action))).toEqual(new Set(['unchanged']));

      // Between two of our services the instance round-trips byte for byte, chatflows and all.
      const again = await runCli(['export'], { home, url: fresh.url });
      const other = await startTestServer();
      try {
        expect((await runCli(['import', '-'], { home, url: other.url, input: again.stdout })).exitCode).toBe(0);
        expect((await runCli(['export'], { home, url: other.url })).stdout).toBe(again.stdout);
      } finally {
        await other.dispose();
      }
    } finally {
      await fresh.dispose();
    }
  });
});

describe('names that need care', () => {
  it('files of chatflows sharing a name take the start of their ids; unsafe characters become _', async () => {
    const s = await startTestServer();
    try {
      const body = (name: string) => ({ name, type: 'CHATFLOW', flowData: '{"nodes":[],"edges":[]}' });
      const ids: string[] = [];
      for (const name of ['Dup', 'dup', 'a/b: "c"', '.hidden']) ids.push((await call('POST', `${s.api}/chatflows`, body(name))).body.id);
      const d = dir();
      const r = await runCli(['chatflows', 'export', '--dir', d, '-q'], { home, url: s.url });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readdirSync(d).sort()).toEqual(['Dup.' + ids[0]!.slice(0, 8) + '.json', '_hidden.json', 'a_b_ _c_.json', 'dup.' + ids[1]!.slice(0, 8) + '.json'].sort());
    } finally {
      await s.dispose();
    }
  });

  it('a credential name and kind the target has twice matches neither: refused, saying so', async () => {
    fx.addCredential('OpenAI main', 'openAIApi');
    const d = dir();
    const doc = JSON.parse(read(dir2Support(), 'Support bot.json'));
    doc.name = 'Twice';
    writeFileSync(join(d, 'twice.json'), JSON.stringify(doc));
    const r = await flowise(['chatflows', 'import', d, '--yes']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('has several credentials of one name and kind: openAIApi "OpenAI main" (used by Twice); rename all but one there');
  });
});

/** A directory holding a Support bot file whose model credential is named (as the service exports it). */
function dir2Support(): string {
  const d = dir();
  const flowData = flow('gpt-4o', 'x') as { nodes: { data: Record<string, unknown> }[] };
  flowData.nodes[0]!.data.credential = { name: 'OpenAI main', kind: 'openAIApi' };
  writeFileSync(join(d, 'Support bot.json'), JSON.stringify({ name: 'Support bot', type: 'CHATFLOW', flowData }));
  return d;
}
