#!/usr/bin/env node
// A big chatflow on Flowise: `messages list` of N messages through the built CLI against the
// Flowise fixture (test/helpers/flowise-fixture.ts, bundled here with esbuild), which answers as a
// real Flowise does: the whole list only once it is built, at --ms-per-row a row answered (a real
// 3.1.2 on SQLite took 16.7-20 s for 200,000 messages: 0.085-0.1 ms) plus --ms-per-scanned-row for
// each row of the chatflow every request scans (0.2 s at 200,000: 0.001 ms; docs/spec/
// flowise-versions.md 5). The floor of the same run: one `curl` of the whole list.
//
//   npm run build && node bench/flowise-big.js [--messages 200000,1000000] [--shapes sessions,real]
//     [--ms-per-row 0.085] [--ms-per-scanned-row 0.001]
//
// Shapes (bench/lib/messages.js): `sessions`, chats of 10 one after another, one message a second,
// over a year; `real`, 10-message chats of minutes starting at random over 60 days (overlapping, as
// real traffic and seed-real.sh). For each size and shape: the whole list by curl; `messages list
// -o ndjson` oldest and newest first (each checked: every message, in date order), `-o table`,
// `--page 1 --limit 10 -o json`: first row, total time, the CLI's peak RSS; and what the fixture was
// asked: requests, the most rows one answer held, whole-list requests, the most requests at once.
import { spawnSync } from 'node:child_process';
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
  options: {
    messages: { type: 'string', default: '200000,1000000' },
    shapes: { type: 'string', default: 'sessions,real' },
    'ms-per-row': { type: 'string', default: '0.085' },
    'ms-per-scanned-row': { type: 'string', default: '0.001' },
  },
});
const SIZES = String(values.messages).split(',').map(Number);
const SHAPES = String(values.shapes).split(',');
const MS_PER_ROW = Number(values['ms-per-row']);
const MS_PER_SCANNED_ROW = Number(values['ms-per-scanned-row']);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/chatflow.js');
const dir = mkdtempSync(join(tmpdir(), 'chatflow-flowise-big-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

await build({ entryPoints: [join(ROOT, 'test/helpers/flowise-fixture.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'fixture.mjs'), logLevel: 'error' });
// The fixture in a process of its own: it holds the whole chatflow; this process only measures.
writeFileSync(
  join(dir, 'serve.mjs'),
  `import { startFlowiseFixture } from './fixture.mjs';
import { benchMessage, realTrafficMessages } from ${JSON.stringify(join(ROOT, 'bench/lib/messages.js'))};
import { createInterface } from 'node:readline';
const [n, msPerRow, msPerScannedRow] = process.argv.slice(2, 5).map(Number);
const shape = process.argv[5];
const fx = await startFlowiseFixture({ msPerRow, msPerScannedRow });
const sessions = Math.ceil(n / 10);
const rows = shape === 'real' ? realTrafficMessages(n, 'big') : (function* () { for (let i = 0; i < n; i++) yield benchMessage(i, 'big', sessions); })();
let chunk = [];
for (const m of rows) {
  chunk.push({ ...m, ms: true });
  if (chunk.length === 50000) fx.seed('big', { messages: chunk }), (chunk = []);
}
if (chunk.length) fx.seed('big', { messages: chunk });
console.log(JSON.stringify({ url: fx.url, key: fx.apiKey, id: fx.idOf('big') }));
let mark = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'stats') break;
  const asked = fx.requests.slice(mark).filter((q) => q.url.startsWith('/api/v1/chatmessage/'));
  mark = fx.requests.length;
  const whole = asked.filter((q) => !/[?&](page|startDate|endDate)=/.test(q.url)).length;
  console.log(JSON.stringify({ requests: asked.length, maxRows: Math.max(0, ...asked.map((q) => q.rows ?? 0)), whole, maxInFlight: fx.takeMaxInFlight() }));
}
await fx.close();
process.exit(0);
`,
);

function startFixture(n, shape) {
  return startFixtureProcess(join(dir, 'serve.mjs'), [n, MS_PER_ROW, MS_PER_SCANNED_ROW, shape]);
}

/** One curl of the whole list, read to its end: the floor. */
function curl(url, key) {
  const r = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_starttransfer} %{time_total}', '-H', `Authorization: Bearer ${key}`, url], { encoding: 'utf8' });
  const [first, total] = r.stdout.split(' ').map((s) => Number(s) * 1000);
  return { firstMs: first, ms: total };
}

/** Checks an ndjson list as it comes: every line a message, each no older (newer: `desc`) than the last. */
function orderCheck(desc) {
  let last;
  let disorder = 0;
  return {
    line(text) {
      const t = Date.parse(/"createdDate":"([^"]+)"/.exec(text)?.[1] ?? '');
      if (Number.isNaN(t) || (last !== undefined && (desc ? t > last : t < last))) disorder++;
      last = t;
    },
    get disorder() {
      return disorder;
    },
  };
}

const env = { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), NO_COLOR: '1' };
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${MS_PER_ROW} ms a row answered, ${MS_PER_SCANNED_ROW} ms a row scanned`);
console.log('| messages | shape | run | first row | total | × curl | CLI peak RSS | in order | requests | most rows in one answer | whole-list requests | requests at once |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const n of SIZES) {
  for (const shape of SHAPES) {
    const fx = startFixture(n, shape);
    const { url, key, id } = await fx.ready;
    const whole = curl(`${url}/api/v1/chatmessage/${id}`, key);
    await fx.stats();
    const size = n.toLocaleString('en');
    console.log(`| ${size} | ${shape} | curl of the whole list | ${s(whole.firstMs)} | ${s(whole.ms)} | 1.00 | | | 1 | ${size} | 1 | 1 |`);
    const runs = [
      ['-o ndjson', ['messages', 'list', id, '-o', 'ndjson'], 1, orderCheck(false)],
      ['--order desc -o ndjson', ['messages', 'list', id, '--order', 'desc', '-o', 'ndjson'], 1, orderCheck(true)],
      ['-o table', ['messages', 'list', id, '-o', 'table'], 2],
      ['--page 1 --limit 10', ['messages', 'list', id, '--page', '1', '--limit', '10', '-o', 'json'], 1],
    ];
    for (const [name, args, firstLine, check] of runs) {
      const r = await runCli(BIN, ['--url', url, ...args], { ...env, CHATFLOW_API_KEY: key }, { scratch: dir, firstLine, onLine: check?.line });
      const st = await fx.stats();
      const order = check ? (check.disorder === 0 && r.lines === n ? 'yes' : `NO (${r.lines} lines, ${check.disorder} out of order)`) : '';
      console.log(
        `| ${size} | ${shape} | ${name} | ${s(r.firstMs ?? r.ms)} | ${s(r.ms)} | ${(r.ms / whole.ms).toFixed(2)} | ${r.rssMb.toFixed(0)} MB | ${order} | ${st.requests} | ${st.maxRows.toLocaleString('en')} | ${st.whole} | ${st.maxInFlight} |`,
      );
    }
    await fx.stop();
  }
}
console.log('targets: first row ≤ 1 s, total ≤ 1.3× curl, CLI peak RSS ≤ 150 MB, ≤ 10,000 messages in one answer, every message in date order, no whole-list request, one request at a time');
