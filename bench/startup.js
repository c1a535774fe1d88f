#!/usr/bin/env node
// Start-up of the CLI against the floor, `node -e 0`, measured in the same run: each round runs
// the floor and every case once, in turn, so load on the machine falls on all of them alike.
// Reports the median of each and its ratio to the floor's median, with the targets.
//
//   npm run build && node bench/startup.js [--runs 21] [--baseline /other/checkout/bin/chatflow.js]
//
// --baseline adds the same cases run by another build of the CLI (say, before a change), in the
// same rounds.
//
// Cases: --version; --help; `variables list -o json` against a running service (20 variables);
// `__complete -- variables delete ''` with a warm cache (its answer cached by a first run).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { alternate } from './lib/alternating.js';

const run = promisify(execFile);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' }, baseline: { type: 'string' } } });
const RUNS = Number(values.runs);
const BIN = new URL('../bin/chatflow.js', import.meta.url).pathname;

const [{ startServer }, { openStore }] = await Promise.all([import('../dist/server/app.js'), import('../dist/server/open-store.js')]);
const dir = mkdtempSync(join(tmpdir(), 'chatflow-bench-'));
const server = await startServer({ store: await openStore({ dbPath: join(dir, 'db.sqlite') }), port: 0 });
for (let i = 0; i < 20; i++) {
  await fetch(`${server.url}/api/v1/variables`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `VAR_${i}`, value: String(i) }),
  });
}
// A user's environment: a home of its own, the server by URL, a warm completion cache.
const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache'), CHATFLOW_URL: server.url };
const completeWith = (bin) => [bin, '__complete', '--', 'variables', 'delete', ''];
const complete = completeWith(BIN);
// The first answer fills the cache; a loaded machine may need more than TAB's usual budget for it.
const { stdout } = await run(process.execPath, complete, { env: { ...env, CHATFLOW_COMPLETE_DEADLINE_MS: '20000' } });
if (stdout.split('\n').filter(Boolean).length !== 20) throw new Error(`completion did not answer the 20 ids:\n${stdout}`);

const cliCases = (bin, label, targets) => [
  { name: `${label} --version`, args: [bin, '--version'], target: targets ? 1.3 : undefined },
  { name: `${label} --help`, args: [bin, '--help'], target: targets ? 1.5 : undefined },
  { name: `${label} variables list -o json (server)`, args: [bin, 'variables', 'list', '-o', 'json'], target: targets ? 1.8 : undefined },
  { name: `${label} __complete variables delete '' (warm)`, args: completeWith(bin), target: targets ? 1.5 : undefined },
];
const cases = [{ name: 'node -e 0 (floor)', args: ['-e', '0'] }, ...cliCases(BIN, 'chatflow', true)];
if (values.baseline) {
  // The baseline's completion cache is its own (its file names may differ): fill it too.
  await run(process.execPath, completeWith(values.baseline), { env: { ...env, CHATFLOW_COMPLETE_DEADLINE_MS: '20000' } });
  cases.push(...cliCases(values.baseline, 'baseline', false));
}
await alternate('CLI start-up', cases, { runs: RUNS, env });
await server.close();
rmSync(dir, { recursive: true, force: true });

