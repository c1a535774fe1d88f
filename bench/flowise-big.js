#!/usr/bin/env node
// A big chatflow on Flowise: `messages list` of N messages through the built CLI against the
// Flowise fixture (test/helpers/flowise-fixture.ts, bundled here with esbuild), which answers as a
// real Flowise does: the whole list only once it is built, at --ms-per-row a row (a real 3.1.2 on
// SQLite took 20 s for 200,000 messages: 0.1 ms), session pages (feedback=true&page&limit) at the
// same cost a row they hold. The floor of the same run: one `curl` of the whole list.
//
//   npm run build && node bench/flowise-big.js [--messages 200000,1000000] [--ms-per-row 0.1]
//
// Messages: bench/lib/messages.js (sessions of 10, one message a second, over a year). For each
// size: the whole list by curl; `messages list -o ndjson`, `-o table`, `--page 1 --limit 10 -o
// json`: first row, total time, the CLI's peak RSS; and what the fixture was asked: the most rows
// one answer held, the requests for the whole list, the most requests at once.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { runCli } from './lib/run-cli.js';

const { values } = parseArgs({
  strict: false,
  options: { messages: { type: 'string', default: '200000,1000000' }, 'ms-per-row': { type: 'string', default: '0.1' } },
});
const SIZES = String(values.messages).split(',').map(Number);
const MS_PER_ROW = Number(values['ms-per-row']);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/chatflow.js');
const dir = mkdtempSync(join(tmpdir(), 'chatflow-flowise-big-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

await build({ entryPoints: [join(ROOT, 'test/helpers/flowise-fixture.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'fixture.mjs'), logLevel: 'error' });
// The fixture in a process of its own: it holds the whole chatflow; this process only measures.
writeFileSync(
  join(dir, 'serve.mjs'),
  `import { startFlowiseFixture } from './fixture.mjs';
import { benchMessage } from ${JSON.stringify(join(ROOT, 'bench/lib/messages.js'))};
import { createInterface } from 'node:readline';
const [n, msPerRow] = process.argv.slice(2).map(Number);
const fx = await startFlowiseFixture({ msPerRow });
const sessions = Math.ceil(n / 10);
for (let i = 0; i < n; i += 50000) {
  fx.seed('big', { messages: Array.from({ length: Math.min(50000, n - i) }, (_, k) => ({ ...benchMessage(i + k, 'big', sessions), ms: true })) });
}
console.log(JSON.stringify({ url: fx.url, key: fx.apiKey, id: fx.idOf('big') }));
let mark = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'stats') break;
  const asked = fx.requests.slice(mark).filter((q) => q.url.startsWith('/api/v1/chatmessage/'));
  mark = fx.requests.length;
  console.log(JSON.stringify({ requests: asked.length, maxRows: Math.max(0, ...asked.map((q) => q.rows ?? 0)), whole: asked.filter((q) => !q.url.includes('page=')).length, maxInFlight: fx.takeMaxInFlight() }));
}
await fx.close();
process.exit(0);
`,
);

function startFixture(n) {
  const child = spawn(process.execPath, ['--max-old-space-size=8192', join(dir, 'serve.mjs'), String(n), String(MS_PER_ROW)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  const waiting = [];
  let buf = '';
  child.stdout.on('data', (c) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      const line = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      (waiting.shift() ?? ((l) => lines.push(l)))(line);
    }
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r)));
  return {
    ready: next(),
    stats: () => (child.stdin.write('stats\n'), next()),
    stop: () => new Promise((r) => (child.once('exit', r), child.stdin.end('quit\n'))),
  };
}

/** One curl of the whole list, read to its end: the floor. */
function curl(url, key) {
  const r = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_starttransfer} %{time_total}', '-H', `Authorization: Bearer ${key}`, url], { encoding: 'utf8' });
  const [first, total] = r.stdout.split(' ').map((s) => Number(s) * 1000);
  return { firstMs: first, ms: total };
}

const env = { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), NO_COLOR: '1' };
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${MS_PER_ROW} ms a row answered`);
console.log('| messages | run | first row | total | × curl | CLI peak RSS | most rows in one answer | whole-list requests | requests at once |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const n of SIZES) {
  const fx = startFixture(n);
  const { url, key, id } = await fx.ready;
  const whole = curl(`${url}/api/v1/chatmessage/${id}`, key);
  await fx.stats();
  console.log(`| ${n.toLocaleString('en')} | curl of the whole list | ${s(whole.firstMs)} | ${s(whole.ms)} | 1.00 | | ${n.toLocaleString('en')} | 1 | 1 |`);
  const runs = [
    ['-o ndjson', ['messages', 'list', id, '-o', 'ndjson'], 1],
    ['-o table', ['messages', 'list', id, '-o', 'table'], 2],
    ['--page 1 --limit 10', ['messages', 'list', id, '--page', '1', '--limit', '10', '-o', 'json'], 1],
  ];
  for (const [name, args, firstLine] of runs) {
    const r = await runCli(BIN, ['--url', url, ...args], { ...env, CHATFLOW_API_KEY: key }, { scratch: dir, firstLine });
    const st = await fx.stats();
    console.log(
      `| ${n.toLocaleString('en')} | ${name} | ${s(r.firstMs ?? r.ms)} | ${s(r.ms)} | ${(r.ms / whole.ms).toFixed(2)} | ${r.rssMb.toFixed(0)} MB | ${st.maxRows.toLocaleString('en')} | ${st.whole} | ${st.maxInFlight} |`,
    );
  }
  await fx.stop();
}
console.log('targets: first row ≤ 1 s, total ≤ 1.2× curl, peak RSS ≤ 150 MB at any size, --page 1 --limit 10 ≤ 1 s, no whole-list request');
