#!/usr/bin/env node
// Pruning N old messages on SQLite and on PostgreSQL, and a concurrent read's latency meanwhile,
// against the same read's latency with nothing else running (the floor of the same run).
//
//   npm run build && node bench/prune.js [--messages 1000000] [--store sqlite,postgres] [--batch 2000]
//
// For each store: N messages of `bench-flow` from 2025 (bench/lib/messages.js) and 2,000 recent
// ones of `other-flow` are ingested through the store. Then, twice:
// 1. `serve --retain 30d`: the service's scheduler (src/server/retention.ts) removes them in
//    batches of --batch while this process reads one session of `other-flow` over HTTP, one
//    request after the other;
// 2. after ingesting them again, `chatflow messages prune --older-than 30d --chatflow bench-flow
//    --yes` (the built CLI, a child process, over HTTP): the plan's count, then one exact delete,
//    with the same reads meanwhile.
// Prints the time each took and the reads' p50/p99/max, beside the idle reads.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SESSION, benchMessage } from './lib/messages.js';

const { values } = parseArgs({
  strict: false,
  options: {
    messages: { type: 'string', default: '1000000' },
    store: { type: 'string', default: 'sqlite,postgres' },
    batch: { type: 'string', default: '2000' },
  },
});
const N = Number(values.messages);
const BATCH = Number(values.batch);
const STORES = String(values.store).split(',');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { startServer } = await import(join(ROOT, 'dist/server/app.js'));
const { openSqliteStore } = await import(join(ROOT, 'dist/server/store/sqlite.js'));
const { openPostgresStore } = await import(join(ROOT, 'dist/server/store/postgres/open.js'));
const ADMIN = process.env.CHATFLOW_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FLOW = 'bench-flow';
const OTHER = 'other-flow';
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'chatflow-prune-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function fill(store) {
  const sessions = Math.ceil(N / SESSION);
  for (let i = 0; i < N; i += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, N - i) }, (_, k) => benchMessage(i + k, FLOW, sessions));
    await store.messages.ingest(FLOW, rows);
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const fmt = (ms) => `${ms.toFixed(1)} ms`;
const summary = (lat) => {
  const s = [...lat].sort((a, b) => a - b);
  return `p50 ${fmt(quantile(s, 0.5))}, p99 ${fmt(quantile(s, 0.99))}, max ${fmt(s[s.length - 1] ?? 0)} (${s.length} reads)`;
};

/** Reads a session of `other-flow` one request after the other until `done` resolves. */
async function reading(api, done) {
  const lat = [];
  let over = false;
  done.then(() => (over = true));
  let s = 0;
  while (!over) {
    const t = performance.now();
    const res = await fetch(`${api}/chatmessage/${OTHER}?sessionId=s-${s++ % 200}`);
    const rows = await res.json();
    if (res.status !== 200 || rows.length !== SESSION) throw new Error(`read: ${res.status}, ${rows.length} rows`);
    lat.push(performance.now() - t);
  }
  return lat;
}

function cli(args, url) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/chatflow.js'), ...args], {
      env: { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir, CHATFLOW_URL: url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => (code === 0 ? resolve(err) : reject(new Error(`chatflow ${args.join(' ')}: exit ${code}: ${err}`))));
  });
}

async function measure(kind) {
  let store;
  let pg;
  if (kind === 'sqlite') store = await openSqliteStore(join(dir, 'prune.db'));
  else {
    const { default: Pg } = await import('pg');
    pg = new Pg.Client({ connectionString: ADMIN });
    await pg.connect();
    await pg.query('drop database if exists chatflow_bench_prune');
    await pg.query('create database chatflow_bench_prune');
    const url = new URL(ADMIN);
    url.pathname = '/chatflow_bench_prune';
    store = await openPostgresStore(url.toString());
  }
  const now = Date.now();
  await store.messages.ingest(OTHER, Array.from({ length: 2000 }, (_, i) => ({ ...benchMessage(i, OTHER, 200), createdDate: new Date(now - DAY + i).toISOString() })));
  const out = { kind };

  // Idle reads: the floor.
  let server = await startServer({ store, port: 0 });
  out.idle = summary(await reading(`${server.url}/api/v1`, new Promise((r) => setTimeout(r, 3000))));
  await server.app.close();

  // 1. The scheduler.
  let t = performance.now();
  await fill(store);
  out.fill = (performance.now() - t) / 1000;
  const lines = [];
  t = performance.now();
  server = await startServer({ store, port: 0, retention: { keepMs: 30 * DAY, batch: BATCH, log: (l) => lines.push(l) } });
  const idle = server.retention.idle().then(() => (out.retain = (performance.now() - t) / 1000));
  out.retainReads = summary(await reading(`${server.url}/api/v1`, idle));
  await server.retention.stop();
  if (!lines.some((l) => l.includes(`removed ${N} messages of chatflow ${FLOW}`))) throw new Error(`retention: ${lines.join('; ')}`);
  await server.app.close();

  // 2. The CLI's prune, over HTTP.
  await fill(store);
  server = await startServer({ store, port: 0 });
  t = performance.now();
  const pruned = cli(['messages', 'prune', '--older-than', '30d', '--chatflow', FLOW, '--yes', '--timeout', '3600'], server.url).then(
    (err) => ((out.prune = (performance.now() - t) / 1000), err),
  );
  out.pruneReads = summary(await reading(`${server.url}/api/v1`, pruned.catch(() => {})));
  const said = await pruned;
  if (!said.includes(`deleted ${N.toLocaleString('en-US').replace(/,/g, ',')}`) && !said.includes(`deleted ${N} `)) console.error(said.trim());
  await server.close();
  if (pg) {
    await pg.query('drop database if exists chatflow_bench_prune with (force)');
    await pg.end();
  }
  return out;
}

console.log(`prune: ${N.toLocaleString('en-US')} messages a run, retention batches of ${BATCH}; load average ${loadavg()[0].toFixed(2)} on 2 cores`);
for (const kind of STORES) {
  const r = await measure(kind);
  console.log(`\n${kind}`);
  console.log(`  ingest (store, not timed in the figures)   ${r.fill.toFixed(1)} s`);
  console.log(`  reads with nothing else running            ${r.idle}`);
  console.log(`  serve --retain: ${N} messages removed in   ${r.retain.toFixed(1)} s  (${Math.round(N / r.retain).toLocaleString('en-US')}/s)`);
  console.log(`    reads meanwhile                          ${r.retainReads}`);
  console.log(`  messages prune (CLI, one exact delete)     ${r.prune.toFixed(1)} s  (${Math.round(N / r.prune).toLocaleString('en-US')}/s)`);
  console.log(`    reads meanwhile                          ${r.pruneReads}`);
}
