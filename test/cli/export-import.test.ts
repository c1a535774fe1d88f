// `chatflow export` and `chatflow import` end to end: the built CLI between real servers (and the
// Flowise-shaped fixture), the round trip, idempotence, bad lines, progress, and a long list
// streamed complete and in order.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, parseNdjson, runCli, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const home = createHome();
const file = (name: string) => join(home.dir, name);
const cli = (server: TestServer, args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, home, ...opts });

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function post(server: TestServer, path: string, body: unknown) {
  const r = await call('POST', `${server.api}${path}`, body);
  expect(r.status, r.text).toBe(200);
}

/** A little of everything, with awkward text; one upsert record soft-deleted (never exported). */
async function seed(server: TestServer) {
  await post(server, '/variables/import', [
    { id: uuid(1), name: 'MODEL', value: 'gpt-4o', type: 'static', createdDate: '2026-01-01T00:00:00.000Z', updatedDate: '2026-01-02T00:00:00.000Z' },
    { id: uuid(2), name: 'REGION', value: 'eu "west"\n1', type: 'runtime', createdDate: '2026-01-03T00:00:00.000Z', updatedDate: '2026-01-03T00:00:00.000Z' },
  ]);
  await post(server, '/assistants', { details: { name: 'Helper', model: 'gpt-4o', temperature: 0.2, tools: ['file_search'] }, credential: 'c1' });
  for (const flow of ['flow-a', 'flow-b']) {
    await post(server, `/chatmessage/${flow}`, Array.from({ length: 30 }, (_, i) => ({
      id: `${flow}-m${String(i).padStart(2, '0')}`,
      role: i % 2 ? 'apiMessage' : 'userMessage',
      content: i === 3 ? 'tab\there, quote " and é 😀\nnext line' : `message ${i}`,
      chatType: i % 3 ? 'INTERNAL' : 'EXTERNAL',
      chatId: `${flow}-c${Math.floor(i / 10)}`,
      sessionId: `${flow}-s${Math.floor(i / 10)}`,
      usedTools: i === 5 ? [{ tool: 'calculator', toolInput: { x: 1.5 }, toolOutput: '2' }] : null,
      createdDate: new Date(Date.UTC(2026, 0, 10, 12, 0, i)).toISOString(),
    })));
    for (const i of [1, 5, 9]) await post(server, '/feedback', { messageId: `${flow}-m0${i}`, rating: i === 5 ? 'THUMBS_DOWN' : 'THUMBS_UP', content: 'ok' });
    await post(server, `/upsert-history/${flow}`, [
      { id: `${flow}-u1`, date: '2026-01-05T00:00:00.000Z', result: { numAdded: 3 }, flowData: '{"nodes":[]}' },
      { id: `${flow}-u2`, date: '2026-01-06T00:00:00.000Z', result: { numAdded: 1 }, flowData: {} },
    ]);
  }
  const r = await call('PATCH', `${server.api}/upsert-history/flow-b`, { ids: ['flow-b-u2'] });
  expect(r.body).toEqual({ affected: 1 });
}

/** The `resource` of each line of an export, counted. */
function tally(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of parseNdjson(text) as { resource: string }[]) out[line.resource] = (out[line.resource] ?? 0) + 1;
  return out;
}

let source: TestServer;
beforeAll(async () => {
  source = await startTestServer();
  await seed(source);
});
afterAll(async () => {
  await source?.dispose();
});

describe('export', () => {
  it('writes one tagged JSON object a line: variables, assistants, then each chatflow', async () => {
    const r = await cli(source, ['export']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = parseNdjson(r.stdout) as { resource: string; chatflowid?: string; data: { id: string } }[];
    expect(tally(r.stdout)).toEqual({ variable: 2, assistant: 1, message: 60, feedback: 6, 'upsert-history': 3 });
    expect(lines[0]).toEqual({ resource: 'variable', data: expect.objectContaining({ id: uuid(2), name: 'REGION' }) });
    expect(Object.keys(lines.find((l) => l.resource === 'message')!)).toEqual(['resource', 'chatflowid', 'data']);
    expect(lines.map((l) => `${l.resource}:${l.chatflowid ?? ''}`).filter((k, i, all) => k !== all[i - 1])).toEqual([
      'variable:', 'assistant:', 'message:flow-a', 'feedback:flow-a', 'upsert-history:flow-a', 'message:flow-b', 'feedback:flow-b', 'upsert-history:flow-b',
    ]);
    // Soft-deleted upsert history stays out.
    expect(lines.some((l) => l.data.id === 'flow-b-u2')).toBe(false);
    expect(r.stderr).toMatch(/^exported 72 records \(0 chatflows, 2 variables, 1 assistants, 60 messages, 6 feedback, 3 upsert-history\) of 2 chatflows to stdout in [\d.]+s\n$/);
  });

  it('--chatflow and --resources narrow it; --out writes a file (the same bytes as stdout)', async () => {
    const r = await cli(source, ['export', '--chatflow', 'flow-b', '--resources', 'messages,feedback', '--out', file('b.jsonl')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const text = readFileSync(file('b.jsonl'), 'utf8');
    expect(tally(text)).toEqual({ message: 30, feedback: 3 });
    expect((parseNdjson(text) as { chatflowid: string }[]).every((l) => l.chatflowid === 'flow-b')).toBe(true);
    const again = await cli(source, ['export', '--chatflow', 'flow-b', '--resources', 'message,feedback', '-f', '-']);
    expect(again.stdout).toBe(text);
  });

  it('an unknown resource is a usage error', async () => {
    const r = await cli(source, ['export', '--resources', 'messages,credentials']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid --resources "credentials"');
  });
});

describe('import', () => {
  it('round trip: export, import into an empty server, export again: the same file', async () => {
    const target = await startTestServer();
    try {
      expect((await cli(source, ['export', '-f', file('a.jsonl')])).exitCode).toBe(0);
      const imported = await cli(target, ['import', file('a.jsonl'), '-o', 'json']);
      expect(imported.exitCode, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toEqual([
        { resource: 'chatflows', records: 0, imported: 0, existing: 0 },
        { resource: 'variables', records: 2, imported: 2, existing: 0 },
        { resource: 'assistants', records: 1, imported: 1, existing: 0 },
        { resource: 'messages', records: 60, imported: 60, existing: 0 },
        { resource: 'feedback', records: 6, imported: 6, existing: 0 },
        { resource: 'upsert-history', records: 3, imported: 3, existing: 0 },
      ]);
      expect(imported.stderr).toMatch(/^read 72 lines in [\d.]+s: 72 imported on http:\/\/\S+ \(CHATFLOW_URL\), 0 skipped \(already there\)\n$/);
      expect((await cli(target, ['export', '-f', file('b.jsonl')])).exitCode).toBe(0);
      expect(readFileSync(file('b.jsonl'), 'utf8')).toBe(readFileSync(file('a.jsonl'), 'utf8'));

      // Again: nothing new, nothing duplicated.
      const again = await cli(target, ['import', file('a.jsonl'), '-o', 'json']);
      expect(again.exitCode, again.stderr).toBe(0);
      for (const row of JSON.parse(again.stdout) as { imported: number; existing: number; records: number }[]) {
        expect(row.imported).toBe(0);
        expect(row.existing).toBe(row.records);
      }
      // The summary says so too: nothing imported, all of it skipped.
      expect(again.stderr).toMatch(/: 0 imported on \S+ \(CHATFLOW_URL\), 72 skipped \(already there\)\n$/);
      expect((await cli(target, ['export'])).stdout).toBe(readFileSync(file('a.jsonl'), 'utf8'));
    } finally {
      await target.dispose();
    }
  });

  it('reads stdin with -, and the embedded service through CHATFLOW_DB', async () => {
    const exported = (await cli(source, ['export'])).stdout;
    const db = file('embedded.db');
    const env = { CHATFLOW_DB: db };
    const r = await runCli(['import', '-', '-q'], { home, env, input: exported });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('chatflows\nvariables\nassistants\nmessages\nfeedback\nupsert-history\n');
    // An import streams to the embedded service in this process, as an export reads from it.
    const debug = (await runCli(['import', '-', '-q', '--debug'], { home, env, input: exported })).stderr;
    expect(debug).toContain('embedded service in this process');
    expect(debug).toMatch(/POST http:\/\/embedded\/api\/v1\/chatmessage\/\S+ 200/);
    const back = await runCli(['export', '--debug'], { home, env });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stdout).toBe(exported);
    expect(back.stderr).toContain('embedded service in this process');
  });

  it('--dry-run counts per resource and sends nothing', async () => {
    const target = await startTestServer();
    try {
      const r = await cli(target, ['import', file('a.jsonl'), '--dry-run', '--resources', 'messages,feedback', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([
        { resource: 'messages', records: 60 },
        { resource: 'feedback', records: 6 },
      ]);
      expect(r.stderr).toContain('6 lines of other resources left out');
      expect((await call('GET', `${target.api}/chatmessage/flow-a`)).body).toEqual([]);
    } finally {
      await target.dispose();
    }
  });

  describe('bad lines', () => {
    let target: TestServer;
    beforeAll(async () => {
      target = await startTestServer();
    });
    afterAll(() => target?.dispose());

    const message = (id: string, extra: object = {}) =>
      JSON.stringify({ resource: 'message', chatflowid: 'bad-flow', data: { id, role: 'userMessage', content: id, createdDate: '2026-01-01T00:00:00.000Z', ...extra } });
    const variable = JSON.stringify({ resource: 'variable', data: { id: uuid(7), name: 'FIRST' } });
    const ids = async () => ((await call('GET', `${target.api}/chatmessage/bad-flow`)).body as { id: string }[]).map((m) => m.id);

    it('a line of any JSON spelling imports its record as JSON reads it: spaces, keys in another order, a repeated or escaped key', async () => {
      const body = (id: string) => ({ id, role: 'userMessage', content: `"${id}" \\ data`, createdDate: '2026-01-01T00:00:00.000Z' });
      writeFileSync(
        file('spelled.jsonl'),
        [
          `{"resource":"message","chatflowid":"spelled","data":${JSON.stringify(body('s1'))}}`,
          ` { "resource" : "message", "chatflowid": "spelled", "data": ${JSON.stringify(body('s2')).replace(/,"/g, ', "').replace(/":/g, '" : ')} } `,
          `{"data":${JSON.stringify(body('s3'))},"resource":"message","chatflowid":"spelled"}`,
          `{"resource":"message","chatflowid":"spelled","data":${JSON.stringify(body('lost'))},"data":${JSON.stringify(body('s4'))}}`,
          `{"resource":"message","chatflowid":"spelled","data":${JSON.stringify(body('lost2'))} , "d\\u0061ta":${JSON.stringify(body('s5'))}}`,
          `{"resource":"message","chatflowid":"spelled","data":${JSON.stringify({ ...body('s6'), usedTools: [{ data: 1 }] })}}`,
        ].join('\n'),
      );
      const r = await cli(target, ['import', file('spelled.jsonl'), '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const stored = (await call('GET', `${target.api}/chatmessage/spelled`)).body as { id: string; content: string }[];
      expect(stored.map((m) => [m.id, m.content])).toEqual(['s1', 's2', 's3', 's4', 's5', 's6'].map((id) => [id, `"${id}" \\ data`]));
    });

    it('stops at a line that is not JSON, naming it; the lines before it are written, nothing after', async () => {
      writeFileSync(file('bad.jsonl'), [variable, message('x1'), message('x2'), '{"resource":"message", oops', message('x4'), ''].join('\n'));
      const r = await cli(target, ['import', file('bad.jsonl')]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('line 4: not valid JSON');
      expect(r.stderr).toContain('nothing from line 4 on was imported (the lines before 4 were; importing again skips them)');
      expect(r.stdout).toBe('');
      // The variable and the messages before the bad line went in; the one after it did not.
      expect(await ids()).toEqual(['x1', 'x2']);
      expect(((await call('GET', `${target.api}/variables`)).body as { id: string }[]).map((v) => v.id)).toEqual([uuid(7)]);
    });

    it('a line the server refuses is named too, and nothing of its batch is written', async () => {
      writeFileSync(file('refused.jsonl'), [message('y1'), message('y2', { content: 42 }), message('y3')].join('\n'));
      const r = await cli(target, ['import', file('refused.jsonl')]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('the server refused line 2 (messages of chatflow bad-flow): content must be a string; nothing from line 1 on was imported;');
      expect(await ids()).toEqual(['x1', 'x2']);
    });

    it('--continue-on-error skips and reports bad lines, and imports the rest', async () => {
      writeFileSync(
        file('mixed.jsonl'),
        [message('z1'), 'not json', message('z3', { content: 42 }), '{"resource":"credential","data":{"id":"x"}}', message('z5'), message('z6', { role: 'bot' })].join('\n'),
      );
      const r = await cli(target, ['import', file('mixed.jsonl'), '--continue-on-error', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toContain('line 2: skipped: not valid JSON');
      expect(r.stderr).toContain('line 3: skipped: content must be a string');
      expect(r.stderr).toContain('line 4: skipped: unknown resource "credential"');
      expect(r.stderr).toContain('line 6: skipped: data.role must be userMessage or apiMessage');
      expect(r.stderr).toContain('4 bad lines skipped (line 2, 3, 4, 6); the rest was imported');
      expect(JSON.parse(r.stdout)).toContainEqual({ resource: 'messages', records: 2, imported: 2, existing: 0 });
      expect(await ids()).toEqual(['x1', 'x2', 'z1', 'z5']);
    });
  });
});

describe('an import of many batches (one streamed request)', () => {
  let target: TestServer;
  beforeAll(async () => {
    target = await startTestServer();
  });
  afterAll(() => target?.dispose());

  const N = 15_000;
  // Message ids are unique across chatflows: each test's flow has its own.
  const id = (flow: string, i: number) => `${flow}-${String(i).padStart(5, '0')}`;
  const lines = (flow: string, bad?: number) =>
    Array.from({ length: N }, (_, i) =>
      JSON.stringify({
        resource: 'message',
        chatflowid: flow,
        data: { id: id(flow, i), role: i % 2 ? 'apiMessage' : 'userMessage', content: i === bad ? 42 : `message ${i} ${'x'.repeat(60)}`, chatId: `c${i % 50}`, createdDate: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() },
      }),
    );
  const feedback = (flow: string, i: number) => JSON.stringify({ resource: 'feedback', chatflowid: flow, data: { id: uuid(100 + i), messageId: id(flow, i), rating: 'THUMBS_UP' } });
  const stored = async (flow: string) => ((await call('GET', `${target.api}/chatmessage/${flow}`)).body as { id: string }[]).map((m) => m.id);

  it('imports every batch, and feedback after the messages it rates', async () => {
    writeFileSync(file('many.jsonl'), [...lines('many'), feedback('many', N - 1), feedback('many', 1), ''].join('\n'));
    const r = await cli(target, ['import', file('many.jsonl'), '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toContainEqual({ resource: 'messages', records: N, imported: N, existing: 0 });
    expect(JSON.parse(r.stdout)).toContainEqual({ resource: 'feedback', records: 2, imported: 2, existing: 0 });
    expect(await stored('many')).toEqual(Array.from({ length: N }, (_, i) => id('many', i)));
  });

  it('into the embedded service, one streamed request a run of records', async () => {
    writeFileSync(file('embedded-many.jsonl'), [...lines('embedded-many'), ''].join('\n'));
    const env = { CHATFLOW_DB: file('embedded-many.db') };
    const r = await runCli(['import', file('embedded-many.jsonl'), '-q', '--debug'], { home, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.match(/POST \S+\/chatmessage\/embedded-many 200/g)).toHaveLength(1);
    const back = await runCli(['messages', 'list', 'embedded-many', '-o', 'ndjson'], { home, env });
    expect(back.stdout.trimEnd().split('\n')).toHaveLength(N);
  });

  it('a line refused in a late batch leaves that batch out; fixed and run again, all is there once', async () => {
    const bad = 12_000;
    writeFileSync(file('late.jsonl'), lines('late', bad).join('\n'));
    const r = await cli(target, ['import', file('late.jsonl')]);
    expect(r.exitCode).toBe(2);
    // The service's batches are 10,000 lines: the first is written, the second (the bad line's) not.
    expect(r.stderr).toContain(`the server refused line ${bad + 1} (messages of chatflow late): content must be a string; nothing from line 10001 on was imported (the lines before 10001 were;`);
    const after = await stored('late');
    expect(after).toEqual(Array.from({ length: 10_000 }, (_, i) => id('late', i)));

    writeFileSync(file('late.jsonl'), lines('late').join('\n'));
    const again = await cli(target, ['import', file('late.jsonl'), '-o', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toContainEqual({ resource: 'messages', records: N, imported: N - after.length, existing: after.length });
    expect(await stored('late')).toEqual(Array.from({ length: N }, (_, i) => id('late', i)));
  });
});

describe('progress', () => {
  it('is absent when stdout and stderr are not terminals, and never on stdout', async () => {
    const r = await cli(source, ['export']);
    expect(r.stderr).not.toMatch(/\r|ETA|records\s+[\d,]+\/s/);
    const forced = await cli(source, ['export', '--progress', '-f', file('p.jsonl')]);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stdout).toBe('');
    expect(forced.stderr).toMatch(/^export 100%\s+72\/72 records\s+[\d,]+\/s/m);
    const imported = await runCli(['import', file('p.jsonl'), '-q'], { home, env: { CHATFLOW_DB: file('progress.db') } });
    expect(imported.stderr).not.toMatch(/\r|ETA/);
  });

  it('is a bar redrawn in place on a terminal (CHATFLOW_FORCE_TTY=1), cleared at the end', async () => {
    const r = await cli(source, ['export', '-f', file('t.jsonl')], { env: { CHATFLOW_FORCE_TTY: '1', NO_COLOR: '1' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\rexport \[[█░]+\]\s+\d+%/);
    expect(r.stderr).toMatch(/\r\u001b\[Kexported 72 records/);
    const quiet = await cli(source, ['export', '--no-progress', '-f', file('t.jsonl')], { env: { CHATFLOW_FORCE_TTY: '1' } });
    expect(quiet.stderr).not.toContain('\r');
  });
});

describe('against Flowise', () => {
  it('exports what its interface gives, with a note on what it cannot', async () => {
    const fx = await startFlowiseFixture();
    try {
      const r = await runCli(['export'], { url: fx.url, home, env: { CHATFLOW_API_KEY: fx.apiKey } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('not the chatflow service');
      expect(r.stderr).toContain('reached; credentials (chatflows name theirs by name and kind), tools');
      expect(tally(r.stdout).chatflow).toBe(2);
      const counts = tally(r.stdout);
      expect(counts.variable).toBe(3);
      expect(counts.message).toBeGreaterThan(0);
      // Flowise's shapes arrive normalised: an assistant's details is an object.
      const assistant = (parseNdjson(r.stdout) as { resource: string; data: { details: unknown } }[]).find((l) => l.resource === 'assistant');
      expect(typeof assistant?.data.details).toBe('object');

      // A wrong key is said as such, without guessing at the server.
      const refused = await runCli(['export'], { url: fx.url, home, env: { CHATFLOW_API_KEY: 'wrong' } });
      expect(refused.exitCode).toBe(4);
      expect(refused.stderr).not.toContain('not the chatflow service');

      // And into our service: everything Flowise gave arrives.
      const target = await startTestServer();
      try {
        const imported = await cli(target, ['import', '-', '-o', 'json'], { input: r.stdout });
        expect(imported.exitCode, imported.stderr).toBe(0);
        for (const row of JSON.parse(imported.stdout) as { resource: string; records: number; imported: number }[]) {
          expect(row.imported, row.resource).toBe(row.records);
        }
      } finally {
        await target.dispose();
      }
    } finally {
      await fx.close();
    }
  });
});

describe('Flowise 3 messages, exported and imported', () => {
  it("keep the fields of Flowise's agentflows: artifacts, reasoning, follow-up prompts, execution", async () => {
    const fx = await startFlowiseFixture();
    const target = await startTestServer();
    try {
      const agentFields = {
        artifacts: [{ type: 'png', data: 'FILE-STORAGE::chart.png' }],
        reasonContent: { thinking: 'The user asks for a chart.', thinkingDuration: 3 },
        followUpPrompts: '["Show it by week","Export it"]',
        executionId: 'a5e1c2d4-0000-4000-8000-000000000001',
      };
      fx.seed('agent-flow', { messages: [{ id: 'agent-m1', role: 'apiMessage', content: 'Here is the chart.', chatId: 'c1', createdDate: '2026-11-20T10:00:00.000Z', ...agentFields }] });
      const exported = await runCli(['export', '--chatflow', fx.idOf('agent-flow'), '--resources', 'messages'], { url: fx.url, home, env: { CHATFLOW_API_KEY: fx.apiKey } });
      expect(exported.exitCode, exported.stderr).toBe(0);
      const imported = await cli(target, ['import', '-', '-q'], { input: exported.stdout });
      expect(imported.exitCode, imported.stderr).toBe(0);
      const [message] = (await call('GET', `${target.api}/chatmessage/${fx.idOf('agent-flow')}`)).body as Record<string, unknown>[];
      expect(message).toMatchObject({ id: 'agent-m1', ...agentFields });
      // And out again as they came in.
      const again = await cli(target, ['export', '--chatflow', fx.idOf('agent-flow'), '--resources', 'messages']);
      expect((parseNdjson(again.stdout) as { data: unknown }[])[0]!.data).toMatchObject(agentFields);
    } finally {
      await target.dispose();
      await fx.close();
    }
  });
});

describe('a long streamed list', () => {
  it('200,000 messages: complete and in order, from messages list and from export', { timeout: 180_000 }, async () => {
    const server = await startTestServer({ bodyLimit: 16 * 1024 * 1024 });
    try {
      const n = 200_000;
      const start = Date.UTC(2025, 0, 1);
      for (let from = 0; from < n; from += 10_000) {
        await post(server, '/chatmessage/long', Array.from({ length: 10_000 }, (_, k) => {
          const i = from + k;
          return { id: `m${String(i).padStart(6, '0')}`, role: 'userMessage', content: `message ${i}`, chatId: `c${i % 100}`, createdDate: new Date(start + i * 1000).toISOString() };
        }));
      }
      const expectIds = (ids: string[]) => {
        expect(ids).toHaveLength(n);
        for (let i = 0; i < n; i++) if (ids[i] !== `m${String(i).padStart(6, '0')}`) throw new Error(`row ${i} is ${ids[i]}`);
      };
      const listed = await runCli(['messages', 'list', 'long', '-o', 'ndjson', '--fields', 'id'], { url: server.url, home, timeout: 120_000 });
      expect(listed.exitCode, listed.stderr).toBe(0);
      expectIds(listed.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { id: string }).id));
      const exported = await runCli(['export', '--chatflow', 'long', '--resources', 'messages'], { url: server.url, home, timeout: 120_000 });
      expect(exported.exitCode, exported.stderr).toBe(0);
      expectIds(exported.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { data: { id: string } }).data.id));
    } finally {
      await server.dispose();
    }
  });
});
