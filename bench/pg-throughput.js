#!/usr/bin/env node
// Throughput of the service on PostgreSQL, one replica against two.
//
//   npx tsc -p . && node bench/pg-throughput.js [--seconds 5] [--concurrency 32]
//
// Creates a fresh database on CHATFLOW_BENCH_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// starts each replica (startServer from dist/) in a child process of its own, so two replicas use
// two cores, and drives them from this process with undici (keep-alive, N requests in flight,
// spread evenly over the replicas). The database is dropped at the end.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const self = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------- replica (child process)

if (process.argv[2] === '--replica') {
  const { startServer } = await import('../dist/server/app.js');
  const { openPostgresStore } = await import('../dist/server/store/postgres/open.js');
  const store = await openPostgresStore(process.argv[3], { poolSize: Number(process.argv[4] ?? 10) });
  const server = await startServer({ store, port: 0 });
  process.send?.({ url: server.url });
  process.on('message', async (m) => {
    if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() });
    if (m === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
} else {
  await main();
}

// ---------------------------------------------------------------- driver

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '32' },
      variables: { type: 'string', default: '50' },
      'pool-size': { type: 'string', default: '10' },
    },
  });
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup);
  const concurrency = Number(values.concurrency);
  const poolSize = Number(values['pool-size']);

  const [{ default: pg }, { Pool }] = await Promise.all([import('pg'), import('undici')]);
  const adminUrl = process.env.CHATFLOW_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `chatflow_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${name}`;

  const children = [];
  const startReplica = async () => {
    const child = fork(self, ['--replica', dbUrl.toString(), String(poolSize)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    const [msg] = await once(child, 'message');
    return { child, url: msg.url };
  };
  /** CPU time (user + system, µs) each replica has used so far. */
  const cpuOf = (replicas) =>
    Promise.all(
      replicas.map(async ({ child }) => {
        const reply = once(child, 'message');
        child.send('cpu');
        const [{ cpu }] = await reply;
        return cpu.user + cpu.system;
      }),
    );
  const stopReplica = async ({ child }) => {
    child.send('stop');
    await once(child, 'exit');
  };

  const rows = [];
  const posted = { ok: 0 };
  let integrity;
  try {
    // Two replicas started together also exercise the migration lock on an empty database.
    const [r1, r2] = await Promise.all([startReplica(), startReplica()]);
    const seed = new Pool(r1.url, { connections: 4 });
    for (let i = 0; i < Number(values.variables); i++) {
      const res = await seed.request({
        method: 'POST',
        path: '/api/v1/variables',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `VAR_${i}`, value: `value ${i}`.repeat(4) }),
      });
      if (res.statusCode !== 200) throw new Error(`seeding answered ${res.statusCode}: ${await res.body.text()}`);
      await res.body.dump();
    }
    await seed.close();

    const scenarios = [
      { label: 'GET /api/v1/variables (50 rows)', method: 'GET', path: () => '/api/v1/variables' },
      {
        label: 'POST /api/v1/chatmessage/{id} (1 msg)',
        method: 'POST',
        path: () => '/api/v1/chatmessage/bench-flow',
        body: () => JSON.stringify({ role: 'userMessage', content: 'hello from the bench', chatId: 'bench-chat' }),
      },
    ];
    for (const replicas of [[r1], [r1, r2]]) {
      for (const s of scenarios) {
        const warm = await load(Pool, replicas, s, concurrency, warmup); // warm-up, not counted
        const cpuBefore = await cpuOf(replicas);
        const selfBefore = process.cpuUsage();
        const result = await load(Pool, replicas, s, concurrency, seconds);
        const self = process.cpuUsage(selfBefore);
        const cpuAfter = await cpuOf(replicas);
        const us = seconds * 1e6;
        result.replicaCpu = cpuAfter.map((c, i) => `${Math.round(((c - cpuBefore[i]) / us) * 100)}%`).join('+');
        result.loaderCpu = `${Math.round(((self.user + self.system) / us) * 100)}%`;
        if (s.method === 'POST') posted.ok += warm.ok + result.ok;
        rows.push({ scenario: s.label, replicas: replicas.length, ...result });
        process.stderr.write(`${s.label} × ${replicas.length}: ${result.rps.toFixed(0)} req/s\n`);
      }
    }
    // Nothing lost: every 200 answer to a POST is one stored message.
    const check = new pg.Client({ connectionString: dbUrl.toString() });
    await check.connect();
    const { rows: stored } = await check.query('SELECT count(*)::int AS n FROM chat_message');
    await check.end();
    integrity = { stored: stored[0].n, answered: posted.ok };
    await Promise.all([r1, r2].map(stopReplica));
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
  printTable(rows, { seconds, concurrency, poolSize });
  console.log(`messages stored: ${integrity.stored}, POSTs answered 200: ${integrity.answered}`);
}

/** `concurrency` loops, each one request at a time, spread over the replicas, for `seconds`. */
async function load(Pool, replicas, scenario, concurrency, seconds) {
  const pools = replicas.map((r) => new Pool(r.url, { connections: Math.ceil(concurrency / replicas.length), pipelining: 1 }));
  const latencies = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const worker = async (w) => {
    const pool = pools[w % pools.length];
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: scenario.method,
          path: scenario.path(),
          headers: scenario.body ? { 'content-type': 'application/json' } : {},
          body: scenario.body?.(),
        });
        await res.body.dump({ limit: Infinity });
        if (res.statusCode === 200) ok++;
        else failed++;
      } catch {
        failed++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { rps: ok / elapsed, ok, failed, p50: pct(50), p99: pct(99) };
}

function printTable(rows, { seconds, concurrency, poolSize }) {
  const header = ['scenario', 'replicas', 'req/s', 'p50 ms', 'p99 ms', 'ok', 'errors', 'replica CPU', 'load-gen CPU'];
  const body = rows.map((r) => [
    r.scenario,
    String(r.replicas),
    r.rps.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.ok),
    String(r.failed),
    r.replicaCpu,
    r.loaderCpu,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(`\nPostgreSQL throughput: ${seconds} s per run, ${concurrency} requests in flight, pool ${poolSize} per replica`);
  console.log(`(${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; CPU in % of one core)`);
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of body) console.log(line(row));
}
