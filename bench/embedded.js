#!/usr/bin/env node
// Small commands on the embedded default (no server configured: the CLI answers from the local
// SQLite database in its own process, opening and closing the file) against the floor,
// `node -e 0`, in the same run, with the median-of-alternating-runs of bench/startup.js.
// Target: 2.0× the floor for each.
//
//   npm run build && node bench/embedded.js [--runs 21] [--baseline /other/checkout/bin/chatflow.js]
//
// --baseline adds the same cases run by another build of the CLI (say, before a change) on the
// same database, in the same rounds. (A build that still has the local service runs them in its
// own process: CHATFLOW_NO_SERVICE=1 is set for it.)
//
// Cases, after `chatflow demo`: variables list -o json; messages list demo-support-bot -o json
// (80 messages); variables set NAME VALUE; and the first command after a fresh install: a home of
// its own each run, no database yet (it creates the file from the build's empty one).
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

const dir = mkdtempSync(join(tmpdir(), 'chatflow-bench-'));
const homeEnv = (home) => ({ HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), XDG_DATA_HOME: join(home, 'data') });
const env = { PATH: process.env.PATH, ...homeEnv(join(dir, 'demo')) };
await run(process.execPath, [BIN, 'demo'], { env });

let fresh = 0;
const target = 2.0;
const cliCases = (bin, label, targets, extra = {}) => [
  { name: `${label} variables list -o json`, args: [bin, 'variables', 'list', '-o', 'json'], target: targets ? target : undefined, env: () => extra },
  { name: `${label} messages list demo-support-bot -o json`, args: [bin, 'messages', 'list', 'demo-support-bot', '-o', 'json'], target: targets ? target : undefined, env: () => extra },
  { name: `${label} variables set BENCH_VALUE 42`, args: [bin, 'variables', 'set', 'BENCH_VALUE', '42'], target: targets ? target : undefined, env: () => extra },
  {
    name: `${label} variables list -o json (fresh install)`,
    args: [bin, 'variables', 'list', '-o', 'json'],
    env: () => ({ ...extra, ...homeEnv(join(dir, `fresh-${fresh++}`)) }),
  },
];
const cases = [{ name: 'node -e 0 (floor)', args: ['-e', '0'] }, ...cliCases(BIN, 'chatflow', true)];
if (values.baseline) cases.push(...cliCases(values.baseline, 'baseline', false, { CHATFLOW_NO_SERVICE: '1' }));
try {
  await alternate('Embedded default', cases, { runs: RUNS, env });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
