#!/usr/bin/env node
// `chats list` and `chats show` on a big chatflow: our service (SQLite and PostgreSQL) and the
// Flowise fixture (test/helpers/flowise-fixture.ts, bundled with esbuild, answering at
// --ms-per-row a row as a real 3.1.2 does), through the built CLI. The floor of the same run:
// `chatflow --version` (a start of the CLI, no request).
//
//   npm run build && node bench/chats.js [--messages 200000] [--ms-per-row 0.1] [--pg postgres://…]
//
// Messages: bench/lib/messages.js (sessions of 10 over a year), plus one chat of 500 messages (the
// newest) and 100 sessionless chats of 2 messages spread over the year; one answer in 50 rated
// down. Each run: wall clock, peak RSS; on Flowise also the most rows one answer held and whether
// the whole list was asked. The store's query alone is timed in this process too (median of 20).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { runCli } from './lib/run-cli.js';
import { startFixtureProcess } from './lib/fixture-process.js';

const { values } = parseArgs({
  strict: false,
  options: { messages: { type: 'string', default: '200000' }, 'ms-per-row': { type: 'string', default: '0.1' }, pg: { type: 'string' } },
});
const N = Number(values.messages);
const MS_PER_ROW = Number(values['ms-per-row']);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/chatflow.js');
const dir = mkdtempSync(join(tmpdir(), 'chatflow-chats-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const LIB = JSON.stringify(join(ROOT, 'bench/lib/messages.js'));

/** The data set, the same on every server: `flow`'s messages and ratings (a module both processes load). */
writeFileSync(
  join(dir, 'data.mjs'),
  `import { benchMessage, START } from ${LIB};
export function data(n, flow) {
  const sessions = Math.ceil(n / 10);
  const messages = Array.from({ length: n }, (_, i) => benchMessage(i, flow, sessions));
  const end = START + 366 * 86_400_000;
  for (let i = 0; i < 500; i++) messages.push({ ...benchMessage(i, flow, 1), id: 'long-' + i, chatId: 'long-chat', sessionId: 'long-chat', createdDate: new Date(end + i * 1000).toISOString() });
  for (let c = 0; c < 100; c++) for (let k = 0; k < 2; k++) {
    messages.push({ ...benchMessage(k, flow, 1), id: 'nos-' + c + '-' + k, chatId: 'nosession-' + c, sessionId: null, createdDate: new Date(START + c * 3.6 * 86_400_000 + k * 1000).toISOString() });
  }
  const feedback = [];
  for (let i = 1; i < n; i += 100) feedback.push({ id: 'fb-' + i, chatId: messages[i].chatId, messageId: messages[i].id, rating: 'THUMBS_DOWN', content: 'wrong', createdDate: messages[i].createdDate });
  return { messages, feedback };
}
`,
);
await build({ entryPoints: [join(ROOT, 'test/helpers/flowise-fixture.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'fixture.mjs'), logLevel: 'error' });
writeFileSync(
  join(dir, 'serve.mjs'),
  `import { startFlowiseFixture } from './fixture.mjs';
import { data } from './data.mjs';
import { createInterface } from 'node:readline';
const [n, msPerRow] = process.argv.slice(2).map(Number);
const fx = await startFlowiseFixture({ msPerRow });
const id = fx.idOf('big');
const { messages, feedback } = data(n, id);
for (let i = 0; i < messages.length; i += 50000) fx.seed('big', { messages: messages.slice(i, i + 50000).map((m) => ({ ...m, ms: true })) });
fx.seed('big', { messages: [], feedback: feedback.map((f) => ({ ...f, ms: true })) });
console.log(JSON.stringify({ url: fx.url, key: fx.apiKey, id }));
let mark = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'stats') break;
  const asked = fx.requests.slice(mark).filter((q) => q.url.startsWith('/api/v1/chatmessage/'));
  mark = fx.requests.length;
  console.log(JSON.stringify({ requests: asked.length, maxRows: Math.max(0, ...asked.map((q) => q.rows ?? 0)), whole: asked.filter((q) => !/page=|chatId=|startDate=|endDate=/.test(q.url)).length }));
}
await fx.close();
process.exit(0);
`,
);

function startFixture() {
  return startFixtureProcess(join(dir, 'serve.mjs'), [N, MS_PER_ROW]);
}

const env = { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), NO_COLOR: '1' };
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const RUNS = (id) => [
  ['chats list (first screen)', ['chats', 'list', id, '-o', 'json']],
  ['chats list --feedback-type down', ['chats', 'list', id, '--feedback-type', 'down', '-o', 'json']],
  ['chats list --page 3', ['chats', 'list', id, '--page', '3', '-o', 'json']],
  ['chats show (500 messages)', ['chats', 'show', id, 'long-chat', '-o', 'json']],
];
console.log(`Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${N.toLocaleString('en')} messages (+700), Flowise ${MS_PER_ROW} ms a row`);
console.log('| server | run | time | × floor | CLI peak RSS | Flowise: requests, most rows in one answer, whole-list requests |');
console.log('|---|---|---|---|---|---|');
const floor = await runCli(BIN, ['--version'], env, { scratch: dir });
console.log(`| - | floor: chatflow --version | ${s(floor.ms)} | 1.00 | ${floor.rssMb.toFixed(0)} MB | |`);

async function ours(name, openStore) {
  const [{ startServer }] = await Promise.all([import('../dist/server/app.js')]);
  const { data } = await import(join(dir, 'data.mjs'));
  const store = await openStore();
  const flow = 'big-flow';
  const { messages, feedback } = data(N, flow);
  for (let i = 0; i < messages.length; i += 10000) await store.messages.ingest(flow, messages.slice(i, i + 10000));
  await store.feedback.ingest(feedback.map((f) => ({ ...f, chatflowid: flow })));
  const times = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await store.messages.chats({ chatflowid: flow }, { page: 1, limit: 20 });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`| ${name} | the store's query, page 1 of 20 (median of 20) | ${(times[10]).toFixed(1)} ms | | | |`);
  const server = await startServer({ store, port: 0 });
  for (const [run, args] of RUNS(flow)) {
    const r = await runCli(BIN, ['--url', server.url, ...args], env, { scratch: dir });
    console.log(`| ${name} | ${run} | ${s(r.ms)} | ${(r.ms / floor.ms).toFixed(2)} | ${r.rssMb.toFixed(0)} MB | |`);
  }
  await server.close();
}

const { openSqliteStore } = await import('../dist/server/store/sqlite.js');
await ours('ours, SQLite', () => openSqliteStore(join(dir, 'bench.db')));
if (values.pg) {
  const { openPostgresStore } = await import('../dist/server/store/postgres/open.js');
  await ours('ours, PostgreSQL', () => openPostgresStore(values.pg));
}
const fx = startFixture();
const { url, key, id } = await fx.ready;
await fx.stats();
for (const [run, args] of RUNS(id)) {
  const r = await runCli(BIN, ['--url', url, ...args], { ...env, CHATFLOW_API_KEY: key }, { scratch: dir });
  const st = await fx.stats();
  console.log(`| Flowise fixture | ${run} | ${s(r.ms)} | ${(r.ms / floor.ms).toFixed(2)} | ${r.rssMb.toFixed(0)} MB | ${st.requests}, ${st.maxRows.toLocaleString('en')}, ${st.whole} |`);
}
await fx.stop();
console.log('targets: chats list first screen ≤ 1 s, chats show of 500 messages ≤ 0.5 s, flat memory, no whole-list request');
