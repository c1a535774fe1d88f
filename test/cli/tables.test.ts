// Tables as a person meets them: the built CLI in a pseudo-terminal at 60, 80 and 120 columns and
// in two time zones: widths, column priorities, the zone named, the pager on and off, `q` and
// Ctrl-C in the pager; and the same lists piped, never paged, ids whole.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/render/text.js';
import { ANSI, runCli, STACK_LINE } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { runInPty, type PtyOptions } from '../helpers/pty.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const pty = (args: string[], opts: Omit<PtyOptions, 'url'>) => runInPty(args, { url: server.url, ...opts });
const plain = (screen: string) => screen.replace(/\u001b\[[0-9;?]*[a-zA-Z]|\u001b[=>]/g, '');
const lines = (screen: string) => plain(screen).split('\n').filter((l) => l.trim() !== '');

const FLOW = 'flow-tables';
const BIG = 'flow-tables-big';
const IDS = 'flow-tables-ids';
// Ids that are not UUIDs, as `demo` makes them: the first 200 (the sample) short, later ones of
// every length up to 25 characters more.
const namedId = (i: number) => `${IDS}-m${i}${i < 200 ? '' : '0'.repeat((i * 7) % 26)}`;
// Around midnight of 2026-10-30 in New York (UTC-4) and Tokyo (UTC+9).
const INSTANTS = ['2026-10-30T03:00:00.000Z', '2026-10-30T05:00:00.000Z', '2026-10-30T16:00:00.000Z'];
const VARIABLES = [
  { name: 'OPENAI_MODEL', value: 'gpt-4o-mini', type: 'static' },
  { name: 'SUPPORT_EMAIL', value: 'support@example.com', type: 'static' },
  { name: 'REGION', value: 'eu-west-1', type: 'runtime' },
];
let variableIds: string[];

beforeAll(async () => {
  server = await startTestServer();
  for (const v of VARIABLES) expect((await call('POST', `${server.api}/variables`, v)).status).toBeLessThan(300);
  variableIds = (await call<{ id: string }[]>('GET', `${server.api}/variables`)).body.map((v) => v.id);
  const session = randomUUID();
  const few = INSTANTS.map((createdDate, i) => ({
    id: randomUUID(), role: i % 2 ? 'apiMessage' : 'userMessage', chatType: 'EXTERNAL', chatId: session, sessionId: session, createdDate,
    content: `Message ${i}: how do I reset my password, and where is the form to change my delivery address?`,
  }));
  expect((await call('POST', `${server.api}/chatmessage/${FLOW}`, few)).status).toBeLessThan(300);
  expect((await call('POST', `${server.api}/feedback`, { messageId: few[1]!.id, rating: 'THUMBS_DOWN', content: 'did not answer' })).status).toBeLessThan(300);
  const many = Array.from({ length: 3000 }, (_, i) => ({
    id: randomUUID(), role: 'userMessage', chatType: 'INTERNAL', chatId: session, sessionId: session, content: `row ${i}`,
    createdDate: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString(),
  }));
  expect((await call('POST', `${server.api}/chatmessage/${BIG}`, many)).status).toBeLessThan(300);
  const named = Array.from({ length: 260 }, (_, i) => ({
    id: namedId(i), role: i % 2 ? 'apiMessage' : 'userMessage', chatType: 'EXTERNAL', chatId: `${IDS}-c${i}`, sessionId: `${IDS}-s${i}`,
    content: `Question ${i}: how do I reset my password, and where is the form to change my delivery address?`,
    createdDate: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString(),
  }));
  expect((await call('POST', `${server.api}/chatmessage/${IDS}`, named)).status).toBeLessThan(300);
  expect((await call('POST', `${server.api}/feedback`, { messageId: namedId(1), rating: 'THUMBS_UP' })).status).toBeLessThan(300);
});
afterAll(async () => {
  await server?.dispose();
});

describe('widths and priorities', () => {
  for (const columns of [60, 80, 120]) {
    it(`at ${columns} columns no line is wider than the terminal`, async () => {
      const r = await pty(['messages', 'list', FLOW, '--feedback', '--no-pager'], { columns });
      expect(r.exitCode, r.screen).toBe(0);
      for (const line of lines(r.screen)) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
      expect(plain(r.screen)).toMatch(/^createdDate {2,}/m);
    });
  }

  it('at 80 columns ids are prefixes and what a person reads is whole; -o wide and -q give the ids whole', async () => {
    const [narrow, wide, quiet] = await Promise.all([
      pty(['variables', 'list'], { columns: 80 }),
      pty(['variables', 'list', '-o', 'wide'], { columns: 80 }),
      pty(['variables', 'list', '-q'], { columns: 80 }),
    ]);
    const text = plain(narrow.screen);
    for (const v of VARIABLES) expect(text).toMatch(new RegExp(`[0-9a-f]{8} +${v.name} +${v.value.replace('.', '\\.')} +${v.type} `));
    for (const id of variableIds) expect(text).not.toContain(id);
    expect(text).toContain('Ids shortened to unique prefixes. -o wide shows them whole.');
    for (const id of variableIds) expect(plain(wide.screen)).toContain(id);
    expect(lines(quiet.screen).sort()).toEqual([...variableIds].sort());
  });

  it('ids that are not UUIDs stay whole, also later ones longer than the sample: their row gives way elsewhere', async () => {
    for (const columns of [80, 120]) {
      const r = await pty(['messages', 'list', IDS, '--no-pager'], { columns, rows: 40 });
      expect(r.exitCode, r.screen).toBe(0);
      const rows = lines(r.screen).filter((l) => l.startsWith('2026-'));
      expect(rows).toHaveLength(260);
      rows.forEach((line, i) => {
        expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
        // The whole id ends the line: never a cut `flow-tables-ids-m21…`, never a prefix of a longer id.
        expect(line.endsWith(`  ${namedId(i)}`), line).toBe(true);
      });
      expect(plain(r.screen)).not.toMatch(new RegExp(`${IDS}-[msc]\\d*…`));
      expect(plain(r.screen)).not.toContain('Ids shortened');
    }
  });

  it('messages --feedback show the rating and the comment; narrow terminals hide the least important columns and say so', async () => {
    const [wide, narrow] = await Promise.all([
      pty(['messages', 'list', FLOW, '--feedback'], { columns: 120 }),
      pty(['messages', 'list', FLOW, '--feedback'], { columns: 60 }),
    ]);
    expect(plain(wide.screen)).toMatch(/▼ down .*Message 1: how do I .*did not answer/);
    // The comment does not fit at 60 columns; the role, ranked below it but narrower, does.
    expect(plain(narrow.screen)).toMatch(/^createdDate +role +rating +content/m);
    expect(plain(narrow.screen).replace(/\n/g, ' ')).toMatch(/To fit 60 columns, (content cut and )?sessionId, comment, id hidden\. -o wide shows them whole\./);
  });
  it('feedback on a narrow terminal keeps its own id (what feedback update takes) before its message id', async () => {
    const r = await pty(['feedback', 'list', IDS, '--no-pager'], { columns: 60 });
    expect(r.exitCode, r.screen).toBe(0);
    const text = plain(r.screen);
    // The feedback's own id (a UUID, shown as a prefix) is what `feedback update` takes.
    expect(text).toMatch(/^id +rating /m);
    expect(text).toMatch(/^[0-9a-f]{8} +▲ up /m);
    for (const line of lines(r.screen)) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
  });
});

describe('one time zone, named', () => {
  const day = ['messages', 'list', FLOW, '--start-date', '2026-10-30', '--end-date', '2026-10-30', '--fields', 'createdDate,role'];
  it('a plain date is a local day, the table prints local times and names the zone', async () => {
    const [ny, tokyo, utc] = await Promise.all([
      pty(day, { columns: 80, env: { TZ: 'America/New_York' } }),
      pty(day, { columns: 80, env: { TZ: 'Asia/Tokyo' } }),
      pty([...day, '--utc'], { columns: 80, env: { TZ: 'Asia/Tokyo' } }),
    ]);
    const dates = (screen: string) => lines(screen).filter((l) => /^2026/.test(l)).map((l) => l.slice(0, 16));
    expect(dates(ny.screen)).toEqual(['2026-10-30 01:00', '2026-10-30 12:00']);
    expect(plain(ny.screen)).toContain('Times in America/New_York (local; --utc for UTC).');
    expect(dates(tokyo.screen)).toEqual(['2026-10-30 12:00', '2026-10-30 14:00']);
    expect(plain(tokyo.screen)).toContain('Times in Asia/Tokyo');
    expect(dates(utc.screen)).toEqual(['2026-10-30 03:00', '2026-10-30 05:00', '2026-10-30 16:00']);
    expect(plain(utc.screen)).toContain('Times in UTC.');
  });

  it('machine formats stay ISO UTC whatever the zone', async () => {
    const r = await runCli(['messages', 'list', FLOW, '-o', 'ndjson', '--fields', 'createdDate', '--since', '2026-10-30T05:00:00Z'], {
      url: server.url, env: { TZ: 'Asia/Tokyo' },
    });
    expect(r.stdout).toBe(`{"createdDate":"${INSTANTS[1]}"}\n{"createdDate":"${INSTANTS[2]}"}\n`);
  });
});

describe('the pager', () => {
  const marker = `sh -c 'echo PAGED-BY-TEST; cat'`;

  it('pages what is taller than the screen, not what fits; CHATFLOW_PAGER before PAGER; --no-pager and PAGER=cat turn it off', async () => {
    const [tall, short, noPager, cat] = await Promise.all([
      pty(['messages', 'list', BIG], { columns: 80, rows: 20, env: { CHATFLOW_PAGER: marker, PAGER: 'false' } }),
      pty(['variables', 'list'], { columns: 80, rows: 20, env: { CHATFLOW_PAGER: marker } }),
      pty(['messages', 'list', BIG, '--no-pager'], { columns: 80, rows: 20, env: { CHATFLOW_PAGER: marker } }),
      pty(['messages', 'list', BIG], { columns: 80, rows: 20, env: { PAGER: 'cat' } }),
    ]);
    expect(tall.exitCode, tall.screen).toBe(0);
    expect(plain(tall.screen)).toMatch(/^PAGED-BY-TEST$/m);
    expect(plain(tall.screen).slice(-3000)).toContain('row 2999');
    expect(plain(short.screen)).not.toContain('PAGED-BY-TEST');
    expect(plain(short.screen)).toContain('OPENAI_MODEL');
    for (const r of [noPager, cat]) {
      expect(r.exitCode, r.screen).toBe(0);
      expect(plain(r.screen)).not.toContain('PAGED-BY-TEST');
      expect(lines(r.screen).filter((l) => /row \d+/.test(l))).toHaveLength(3000);
    }
  });

  it('never when piped', async () => {
    const r = await runCli(['messages', 'list', BIG, '-o', 'table'], { url: server.url, env: { CHATFLOW_PAGER: marker } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('PAGED-BY-TEST');
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('q in less ends the command: exit 0, no error, no stack', async () => {
    const r = await pty(['messages', 'list', BIG], { columns: 80, rows: 20, keys: [{ when: /row 10\b/, text: 'q', delayMs: 200 }] });
    expect(r.exitCode, r.screen).toBe(0);
    expect(plain(r.screen)).not.toMatch(/chatflow:|Error/);
    expect(plain(r.screen)).not.toMatch(STACK_LINE);
    // less showed a screenful, not all of it.
    expect(plain(r.screen)).not.toContain('row 2999');
  });

  it('Ctrl-C in less stops the list; q then leaves: exit 0, no error, no stack', async () => {
    const r = await pty(['messages', 'list', BIG], {
      columns: 80,
      rows: 20,
      keys: [
        { when: /row 10\b/, text: '\x03', delayMs: 200 },
        { when: /row 10\b/, text: 'q', delayMs: 600 },
      ],
    });
    expect(r.exitCode, r.screen).toBe(0);
    expect(plain(r.screen)).not.toMatch(/chatflow:|Error/);
    expect(plain(r.screen)).not.toMatch(STACK_LINE);
  });
});

it('demo --messages N shows a progress bar on a terminal', async () => {
  const r = await runInPty(['demo', '--messages', '3000'], { columns: 80 });
  expect(r.exitCode, r.screen).toBe(0);
  expect(r.screen).toMatch(/demo \[[█░]+\] +\d+%/);
  expect(plain(r.screen)).toMatch(/demo data ready: 3,?120 new messages/);
});

describe('identity at 80 columns', () => {
  let own: TestServer;
  const LONG = { name: 'OPENAI_MODEL_NAME_LONG', value: 'gpt-4o-2024-08-06 with a long description of why this model was chosen', type: 'static' };
  const INSTRUCTIONS = 'Greet new customers, explain the onboarding steps in order, and hand over to a human when the customer asks for a refund or a contract change.';
  const at80 = (args: string[]) => runInPty([...args, '--no-pager'], { url: own.url, columns: 80 });
  let assistantId: string;
  beforeAll(async () => {
    own = await startTestServer();
    for (const v of [LONG, ...VARIABLES]) expect((await call('POST', `${own.api}/variables`, v)).status).toBeLessThan(300);
    const a = await call<{ id: string }>('POST', `${own.api}/assistants`, { details: { name: 'Customer onboarding specialist (EU)', model: 'gpt-4o-2024-08-06', instructions: INSTRUCTIONS }, type: 'CUSTOM' });
    assistantId = a.body.id;
    const u = await call('POST', `${own.api}/upsert-history/demo-sales-assistant`, [
      { id: 'demo-sales-assistant-u0', result: { numAdded: 12, numUpdated: 0, numSkipped: 0, numDeleted: 0 }, flowData: {}, date: '2026-10-12T00:00:00.000Z' },
    ]);
    expect(u.status, u.text).toBeLessThan(300);
  });
  afterAll(async () => {
    await own?.dispose();
  });

  it('variables list keeps the whole name, cuts the value first, and the note names every column cut or hidden', async () => {
    const r = await at80(['variables', 'list']);
    const text = plain(r.screen);
    expect(text).toMatch(/[0-9a-f]{8} +OPENAI_MODEL_NAME_LONG +gpt-4o-2024-08-06 with.*… +static/);
    for (const line of lines(r.screen)) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(text.replace(/\n/g, ' ')).toContain('Ids shortened to unique prefixes. To fit 80 columns, value cut and updatedDate hidden. -o wide shows them whole.');
  });

  it('-o wide at 80 columns cuts nothing: every name, value and id whole', async () => {
    const r = await at80(['variables', 'list', '-o', 'wide']);
    const text = plain(r.screen).replace(/\n/g, '');
    expect(text).toContain(LONG.value);
    expect(text).not.toContain('…');
  });

  it('assistants list keeps the name whole; upsert-history list shows the id delete takes, before the chatflow every row repeats', async () => {
    const [assistants, upserts] = await Promise.all([at80(['assistants', 'list']), at80(['upsert-history', 'list'])]);
    expect(plain(assistants.screen)).toMatch(/Customer onboarding specialist \(EU\) +gpt-4o-2024-08-06/);
    expect(plain(upserts.screen)).toMatch(/^id +date +result/m);
    expect(plain(upserts.screen)).toMatch(/^demo-sales-assistant-u0 +2026-10-12/m);
  });

  it('get wraps a long value instead of cutting it: the instructions read back whole', async () => {
    const [variable, assistant] = await Promise.all([at80(['variables', 'get', LONG.name]), at80(['assistants', 'get', assistantId])]);
    const joined = (screen: string) => lines(screen).map((l) => l.trim()).join(' ');
    expect(joined(variable.screen)).toContain(LONG.value);
    expect(joined(assistant.screen)).toContain(INSTRUCTIONS);
    for (const s of [variable.screen, assistant.screen]) {
      expect(plain(s)).not.toContain('…');
      for (const line of lines(s)) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    }
  });
});
