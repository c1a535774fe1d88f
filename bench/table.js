#!/usr/bin/env node
// `messages list` as a person sees it, a table on a terminal, beside `-o ndjson` over the same
// data: time to the first row, total time and peak RSS, at each size. Prints one table.
//
//   npm run build && node bench/table.js [--messages 200000,1000000] [--columns 120] [--repeat N] [--keep]
//
// The data is `chatflow demo --messages N` in a fresh embedded database (each size adds to the
// one before: demo adds only what is missing). Each list runs two ways on the same database:
// - `in-process`: the embedded default, the service in the CLI's own process, its memory counted
//   in the CLI's;
// - `serve`: against `chatflow serve` in a process of its own (over TCP), its peak in the last column.
// Each list is a child process with stdout a pipe
// read here; CHATFLOW_FORCE_TTY=1 and COLUMNS make it lay the table out for a terminal of that
// width (colour, fitted columns) without a pager. The floor, `node -e 0`, is measured in the same
// run: this machine is shared and its speed drifts. A service's peak is its VmHWM over both lists.
// With --repeat N the two lists run N times by turns and each shows its fastest run (its first row
// too) and its highest peak: on a loaded machine one run of each says more about the load.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runCli } from './lib/run-cli.js';

// bench/run.js hands every benchmark the same options: unknown ones are left alone.
const { values } = parseArgs({
  strict: false,
  options: {
    messages: { type: 'string', default: '200000,1000000' },
    columns: { type: 'string', default: '120' },
    repeat: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const SIZES = String(values.messages).split(',').map(Number).sort((a, b) => a - b);
const COLUMNS = Number(values.columns);
const REPEAT = Number(values.repeat);
if (!SIZES.every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(COLUMNS) || COLUMNS < 20 || !Number.isInteger(REPEAT) || REPEAT < 1) {
  console.error('usage: node bench/table.js [--messages N[,N...]] [--columns N] [--repeat N] [--keep]');
  process.exit(2);
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'chatflow.js');
const FLOW = 'demo-support-bot';
const dir = mkdtempSync(join(tmpdir(), 'chatflow-table-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  if (localPid) process.kill(localPid);
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CHATFLOW_') && !['NO_COLOR', 'PAGER', 'CI', 'XDG_RUNTIME_DIR'].includes(k)));
for (const d of ['config', 'data', 'cache']) mkdirSync(join(dir, d), { recursive: true });
Object.assign(env, { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache') });
const tty = { ...env, CHATFLOW_FORCE_TTY: '1', COLUMNS: String(COLUMNS) };
const run = (args, e, opts) => runCli(BIN, args, e, { scratch: dir, children, ...opts });

/** Peak RSS of a running process, in MB (VmHWM). */
const peakMb = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const load = loadavg()[0];

/** `chatflow serve` on the benchmark's database, in a process of its own: its URL, and a stop. */
async function serve() {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  children.add(child);
  let text = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      text += c;
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`chatflow serve exited ${code}: ${text}`)));
  });
  return {
    url,
    pid: child.pid,
    stop() {
      child.kill();
      children.delete(child);
    },
  };
}

const floor = await runCli('-e', ['0'], env, { scratch: dir });
const rows = [];
for (const n of SIZES) {
  process.stdout.write(`demo --messages ${fmt(n)}… `);
  const seeded = await run(['demo', '--messages', String(n), '--no-progress'], env);
  console.log(`${fmt(seeded.ms / 1000, 1)} s`);
  for (const server of ['in-process', 'serve']) {
    const service = server === 'serve' ? await serve() : undefined;
    const base = service ? { CHATFLOW_URL: service.url } : {};
    const measured = {};
    for (let round = 0; round < REPEAT; round++) {
      for (const [format, firstLine, e] of [['ndjson', 1, env], ['table', 2, tty]]) {
        process.stdout.write(`  ${server}: messages list -o ${format}… `);
        const r = await run(['messages', 'list', FLOW, '-o', format], { ...e, ...base }, { firstLine, countLines: true });
        const printed = r.lines - (firstLine - 1);
        if (printed < n) throw new Error(`-o ${format} printed ${printed} rows of ${n}`);
        console.log(`${fmt(r.ms / 1000, 1)} s (load ${loadavg()[0].toFixed(1)})`);
        const best = measured[format];
        measured[format] = !best ? r : { ...(r.ms < best.ms ? r : best), rssMb: Math.max(r.rssMb, best.rssMb) };
      }
    }
    const serviceMb = service ? peakMb(service.pid) : undefined;
    service?.stop();
    rows.push({ n, server, serviceMb, ...measured });
  }
}

const best = REPEAT > 1 ? `; fastest of ${REPEAT} runs each` : '';
console.log(`\nmessages list ${FLOW} on SQLite; table at ${COLUMNS} columns${best} (load average ${load.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end)`);
console.log(`floor: node -e 0 took ${fmt(floor.ms)} ms, ${fmt(floor.rssMb)} MB`);
console.log('| messages | service | format | first row | total | total / ndjson | peak RSS of the CLI process | peak RSS of the service process |');
console.log('|---:|---|---|---:|---:|---:|---:|---:|');
for (const { n, server, serviceMb, ndjson, table } of rows) {
  for (const [format, r] of [['ndjson', ndjson], ['table', table]]) {
    const svc = serviceMb === undefined ? '(in the CLI)' : `${fmt(serviceMb)} MB`;
    console.log(`| ${fmt(n)} | ${server} | ${format} | ${fmt(r.firstMs / 1000, 2)} s | ${fmt(r.ms / 1000, 1)} s | ${fmt(r.ms / ndjson.ms, 2)}× | ${fmt(r.rssMb)} MB | ${svc} |`);
  }
}
