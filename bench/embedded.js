#!/usr/bin/env node
// Small commands on the embedded default (no server configured: the CLI answers from the local
// SQLite database, through the local service the first command started, src/cli/local-service.ts)
// against the floor, `node -e 0`, in the same run, with the median-of-alternating-runs of
// bench/startup.js. Target: 2.5× the floor for each.
//
//   npm run build && node bench/embedded.js [--runs 21] [--baseline /other/checkout/bin/chatflow.js]
//
// --baseline adds the same cases run by another build of the CLI (say, before a change), in the
// same rounds (of the same version, it talks to the same local service).
//
// Cases, after `chatflow demo` (which started the local service): variables list -o json;
// messages list demo-support-bot -o json (80 messages); variables set NAME VALUE; the same list
// in the command's own process (CHATFLOW_NO_SERVICE=1: what every command cost before, and what
// a command costs where no service may run); and the first command after a fresh install: a home
// of its own each run, no database yet (it creates the file and the schema, answers in its own
// process and starts the service in the background, whose start-up shares the machine).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
// Until the service demo started answers.
for (let tries = 0; ; tries++) {
  const { stderr } = await run(process.execPath, [BIN, 'variables', 'list', '-o', 'json', '--debug'], { env });
  if (stderr.includes('embedded service over ')) break;
  if (tries > 100) throw new Error(`the local service did not start:\n${stderr}`);
  await new Promise((r) => setTimeout(r, 100));
}

let fresh = 0;
async function serviceUp(runDir) {
  for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
    if (existsSync(runDir) && readdirSync(runDir).some((n) => n.endsWith('.json'))) return;
  }
}
const target = 2.5;
const cliCases = (bin, label, targets) => [
  { name: `${label} variables list -o json`, args: [bin, 'variables', 'list', '-o', 'json'], target: targets ? target : undefined },
  { name: `${label} messages list demo-support-bot -o json`, args: [bin, 'messages', 'list', 'demo-support-bot', '-o', 'json'], target: targets ? target : undefined },
  { name: `${label} variables set BENCH_VALUE 42`, args: [bin, 'variables', 'set', 'BENCH_VALUE', '42'], target: targets ? target : undefined },
  { name: `${label} variables list -o json (no service)`, args: [bin, 'variables', 'list', '-o', 'json'], env: () => ({ CHATFLOW_NO_SERVICE: '1' }) },
  {
    name: `${label} variables list -o json (fresh install)`,
    args: [bin, 'variables', 'list', '-o', 'json'],
    target: targets ? target : undefined,
    env: () => homeEnv(join(dir, `fresh-${fresh++}`)),
    // The service this first command started finishes starting before the next case runs: its
    // start-up is this command's cost, not the next one's.
    after: () => serviceUp(join(dir, `fresh-${fresh - 1}`, 'cache', 'chatflow', 'run')),
  },
];
const cases = [{ name: 'node -e 0 (floor)', args: ['-e', '0'] }, ...cliCases(BIN, 'chatflow', true)];
if (values.baseline) cases.push(...cliCases(values.baseline, 'baseline', false));
try {
  await alternate('Embedded default', cases, { runs: RUNS, env });
} finally {
  // Every service this bench started: the demo home's and each fresh home's.
  const homes = [env, ...Array.from({ length: fresh }, (_, i) => ({ ...env, ...homeEnv(join(dir, `fresh-${i}`)) }))];
  await Promise.all(homes.map((e) => run(process.execPath, [BIN, 'service', 'stop'], { env: e }).catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
}
