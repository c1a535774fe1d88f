#!/usr/bin/env node
// Start-up cost of the CLI and of shell completion, against a running server.
//
//   npx tsc -p . && node bench/completion.js [--runs 10]
//
// Times (wall clock, median and range over N runs) `node -e 0`, `chatflow --version`,
// `chatflow variables list -o json` against a running service, and
// `chatflow __complete -- variables delete ''` with a cold cache (a fresh XDG_CACHE_HOME each
// run: one request to the server) and a warm one (the cached answer).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';

const run = promisify(execFile);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const RUNS = Number(values.runs);
const BIN = new URL('../bin/chatflow.js', import.meta.url).pathname;

const [{ startServer }, { openSqliteStore }] = await Promise.all([
  import('../dist/server/app.js'),
  import('../dist/server/store/sqlite.js'),
]);
const dir = mkdtempSync(join(tmpdir(), 'chatflow-bench-'));
const server = await startServer({ store: await openSqliteStore(join(dir, 'db.sqlite')), port: 0 });
for (let i = 0; i < 20; i++) {
  await fetch(`${server.url}/api/v1/variables`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `VAR_${i}`, value: String(i) }),
  });
}
const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), CHATFLOW_URL: server.url };

async function time(args, extraEnv = () => ({})) {
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const e = { ...env, ...extraEnv(i) };
    const started = performance.now();
    await run(process.execPath, args, { env: e });
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], min: ms[0], max: ms[ms.length - 1] };
}

const warmCache = join(dir, 'cache-warm');
const rows = [
  ['node -e 0', await time(['-e', '0'])],
  ['chatflow --version', await time([BIN, '--version'])],
  ['chatflow variables list -o json', await time([BIN, 'variables', 'list', '-o', 'json'])],
  ['__complete variables delete (cold cache)', await time([BIN, '__complete', '--', 'variables', 'delete', ''], (i) => ({ XDG_CACHE_HOME: join(dir, `cache-${i}`) }))],
];
await run(process.execPath, [BIN, '__complete', '--', 'variables', 'delete', ''], { env: { ...env, XDG_CACHE_HOME: warmCache } });
rows.push(['__complete variables delete (warm cache)', await time([BIN, '__complete', '--', 'variables', 'delete', ''], () => ({ XDG_CACHE_HOME: warmCache }))]);
await server.close();
rmSync(dir, { recursive: true, force: true });

console.log(`\nCLI start-up, ${RUNS} runs each (wall clock, ms)\n`);
console.log(`${'command'.padEnd(44)} ${'median'.padStart(7)} ${'min'.padStart(7)} ${'max'.padStart(7)}`);
for (const [name, t] of rows) {
  console.log(`${name.padEnd(44)} ${t.median.toFixed(0).padStart(7)} ${t.min.toFixed(0).padStart(7)} ${t.max.toFixed(0).padStart(7)}`);
}
