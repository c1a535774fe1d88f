#!/usr/bin/env node
// Latency of filtered chat-message lists on a large SQLite database.
//
//   npx tsc -p . && node bench/messages-filter.js [--messages 1000000] [--requests 200] [--keep]
//
// Fills a fresh SQLite file in a temporary directory with N messages of one chatflow through the
// store (openSqliteStore(path).messages.ingest, batches of 10,000): N/50 sessions (20,000 for a
// million), each a chat of alternating user/api messages started at a random moment of one year,
// 85% INTERNAL and 15% EXTERNAL. Then starts the service (startServer from dist/, port 0) and
// times sequential GET /api/v1/chatmessage/{id} requests over keep-alive (undici), reading each
// answer whole. Last, it asks SQLite (better-sqlite3 on the file) for the plan of the exact SQL the
// store runs for each case (captured from kysely's query log).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const N = Number(values.messages);
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(REQUESTS) || REQUESTS < 1) {
  console.error('usage: node bench/messages-filter.js [--messages N] [--requests N] [--warmup N] [--seed N] [--keep]');
  process.exit(2);
}

const [{ openSqliteStore }, { startServer }, { KyselyStore }, { Kysely, SqliteDialect }, { default: Database }, { Agent, request }] =
  await Promise.all([
    import('../dist/server/store/sqlite.js'),
    import('../dist/server/app.js'),
    import('../dist/server/store/kysely-store.js'),
    import('kysely'),
    import('better-sqlite3'),
    import('undici'),
  ]);

// ---------------------------------------------------------------- data

/** mulberry32: the same data for the same seed. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(Number(values.seed));
const pick = (n) => Math.floor(random() * n);

const FLOW = 'bench-flow-0001';
const YEAR_START = Date.UTC(2025, 0, 1);
const YEAR_MS = 365 * 86_400_000;
const SESSIONS = Math.max(1, Math.round(N / 50));
const sessions = Array.from({ length: SESSIONS }, (_, i) => ({
  id: `session-${String(i).padStart(6, '0')}-${Math.floor(random() * 1e9).toString(36)}`,
  start: YEAR_START + pick(YEAR_MS - 86_400_000),
  chatType: random() < 0.85 ? 'INTERNAL' : 'EXTERNAL',
  count: 0,
}));
const WORDS = 'the a flow node answer question vector store document chunk retriever model token prompt memory agent tool result context user'.split(' ');
const sentence = (n) => Array.from({ length: n }, () => WORDS[pick(WORDS.length)]).join(' ');

function makeMessage(i) {
  const s = sessions[pick(SESSIONS)];
  const k = s.count++;
  const api = k % 2 === 1;
  return {
    id: `msg-${String(i).padStart(8, '0')}`,
    role: api ? 'apiMessage' : 'userMessage',
    content: sentence(api ? 30 : 10),
    chatType: s.chatType,
    chatId: s.id,
    sessionId: s.id,
    memoryType: 'bufferMemory',
    ...(api && k % 6 === 1 ? { sourceDocuments: [{ pageContent: sentence(20), metadata: { source: 'kb.pdf', page: k } }] } : {}),
    // A message every 20-80 seconds within the session.
    createdDate: new Date(s.start + k * 50_000 + pick(30_000)).toISOString(),
  };
}

// ---------------------------------------------------------------- fill

const dir = mkdtempSync(join(tmpdir(), 'chatflow-bench-'));
const dbPath = join(dir, 'chatflow.db');
const BATCH = 10_000;

const store = await openSqliteStore(dbPath);
const fillStart = performance.now();
let stored = 0;
for (let i = 0; i < N; i += BATCH) {
  const batch = [];
  for (let j = i; j < Math.min(N, i + BATCH); j++) batch.push(makeMessage(j));
  stored += await store.messages.ingest(FLOW, batch);
  if (process.stderr.isTTY) process.stderr.write(`\rfilling: ${stored.toLocaleString('en-US')} / ${N.toLocaleString('en-US')}`);
}
const fillSeconds = (performance.now() - fillStart) / 1000;
if (process.stderr.isTTY) process.stderr.write('\n');
if (stored !== N) throw new Error(`stored ${stored} of ${N} messages`);

// ---------------------------------------------------------------- measure

const server = await startServer({ store, port: 0 });
const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
const day = (ms) => new Date(ms).toISOString().slice(0, 10);

async function get(query) {
  const started = performance.now();
  const res = await request(`${server.url}/api/v1/chatmessage/${FLOW}?${new URLSearchParams(query)}`, { dispatcher });
  const text = await res.body.text();
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 200)}`);
  return { ms, rows: JSON.parse(text).length, total: res.headers['x-total-count'] };
}

const randomSession = () => sessions[pick(SESSIONS)];
const cases = [
  {
    name: 'sessionId',
    query: () => ({ sessionId: randomSession().id }),
  },
  {
    name: 'sessionId + startDate/endDate (30 days)',
    // "This session's messages of that month": 30 plain days around the session's start.
    query: () => {
      const s = randomSession();
      return { sessionId: s.id, startDate: day(s.start - 15 * 86_400_000), endDate: day(s.start + 14 * 86_400_000) };
    },
  },
  {
    name: 'startDate/endDate (7 days), page=1 limit=50',
    query: () => {
      const from = YEAR_START + pick(YEAR_MS - 8 * 86_400_000);
      return { startDate: day(from), endDate: day(from + 6 * 86_400_000), page: '1', limit: '50' };
    },
  },
];

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const results = [];
for (const c of cases) {
  for (let i = 0; i < WARMUP; i++) await get(c.query());
  const times = [];
  let rows = 0;
  let total = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const r = await get(c.query());
    times.push(r.ms);
    rows += r.rows;
    total += Number(r.total ?? 0);
  }
  times.sort((a, b) => a - b);
  results.push({
    name: c.name,
    median: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    max: times[times.length - 1],
    rows: rows / REQUESTS,
    total: total / REQUESTS,
  });
}
await dispatcher.close();
await server.close(); // closes the store too

// ---------------------------------------------------------------- plans

/** The SQL the store runs for a list, captured from kysely's log, with its parameters. */
async function capturedQueries(filter, page) {
  const queries = [];
  const db = new Kysely({
    dialect: new SqliteDialect({ database: new Database(dbPath, { readonly: true }) }),
    log: (event) => queries.push({ sql: event.query.sql, parameters: event.query.parameters }),
  });
  const captureStore = new KyselyStore(db, 'sqlite');
  const listing = await captureStore.messages.list({ chatflowid: FLOW, ...filter }, 'asc', page);
  for await (const row of listing.rows) {
    void row;
    break; // the first batch's query is enough
  }
  await db.destroy();
  return queries;
}

const sample = sessions[0];
const planCases = [
  ['sessionId', { sessionId: sample.id }, {}],
  [
    'sessionId + dates',
    { sessionId: sample.id, start: new Date(sample.start - 15 * 86_400_000).toISOString(), end: new Date(sample.start + 15 * 86_400_000).toISOString() },
    {},
  ],
  ['dates, page/limit', { start: '2025-03-01T00:00:00.000Z', end: '2025-03-07T23:59:59.999Z' }, { page: 1, limit: 50 }],
];
const sqlite = new Database(dbPath, { readonly: true });
const plans = [];
for (const [name, filter, page] of planCases) {
  for (const q of await capturedQueries(filter, page)) {
    const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.parameters);
    plans.push({ name, sql: q.sql, plan: plan.map((p) => p.detail) });
  }
}
sqlite.close();

// ---------------------------------------------------------------- report

const size = ['', '-wal'].reduce((sum, suffix) => {
  try {
    return sum + statSync(dbPath + suffix).size;
  } catch {
    return sum;
  }
}, 0);
const fmt = (n, digits = 1) => n.toFixed(digits);
const pad = (s, w, right = false) => (right ? String(s).padStart(w) : String(s).padEnd(w));

console.log(`\nchatflow bench: messages-filter (SQLite, Node ${process.version})`);
console.log(
  `fill: ${N.toLocaleString('en-US')} messages, ${SESSIONS.toLocaleString('en-US')} sessions, 1 chatflow in ${fmt(fillSeconds)} s ` +
    `(${Math.round(N / fillSeconds).toLocaleString('en-US')} msg/s); database ${fmt(size / 1024 / 1024, 0)} MiB`,
);
console.log(`latency: ${REQUESTS} sequential requests per case after ${WARMUP} warm-up, keep-alive, whole answer read\n`);
const header = ['case', 'median ms', 'p95 ms', 'max ms', 'rows/answer', 'X-Total-Count'];
const widths = [44, 10, 10, 10, 12, 14];
console.log(header.map((h, i) => pad(h, widths[i], i > 0)).join(' '));
console.log(widths.map((w) => '-'.repeat(w)).join(' '));
for (const r of results) {
  console.log(
    [
      pad(r.name, widths[0]),
      pad(fmt(r.median, 2), widths[1], true),
      pad(fmt(r.p95, 2), widths[2], true),
      pad(fmt(r.max, 2), widths[3], true),
      pad(fmt(r.rows), widths[4], true),
      pad(r.total ? fmt(r.total, 0) : '-', widths[5], true),
    ].join(' '),
  );
}
console.log('\nEXPLAIN QUERY PLAN of the SQL the store runs:');
for (const p of plans) {
  const kind = /count\(\*\)/i.test(p.sql) ? 'count' : 'rows';
  console.log(`  ${p.name} (${kind}): ${p.plan.join(' | ')}`);
}

if (values.keep) console.log(`\ndatabase kept: ${dbPath}`);
else rmSync(dir, { recursive: true, force: true });
