#!/usr/bin/env node
// Runs the benchmarks of bench/, one after another: every bench/*.js but this file, in name
// order, or only those named. Options after the names go to each benchmark run.
//
//   npm run bench                                   # all of them (builds first)
//   node bench/run.js million --messages 200000     # one, with its options
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.js') && f !== self)
  .sort();

const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith('-'));
const names = firstOption === -1 ? args : args.slice(0, firstOption);
const passed = (firstOption === -1 ? [] : args.slice(firstOption)).filter((a, i) => !(i === 0 && a === '--'));

const chosen = names.length === 0 ? all : names.map((n) => (n.endsWith('.js') ? n : `${n}.js`));
const unknown = chosen.filter((f) => !all.includes(f));
if (unknown.length > 0) {
  console.error(`no such benchmark: ${unknown.join(', ')} (there are: ${all.map((f) => f.replace(/\.js$/, '')).join(', ')})`);
  process.exit(2);
}

const failed = [];
for (const file of chosen) {
  console.log(`\n=== bench/${file}${passed.length ? ` ${passed.join(' ')}` : ''}`);
  const { status, signal } = spawnSync(process.execPath, [join(dir, file), ...passed], { stdio: 'inherit' });
  if (status !== 0) failed.push(`${file} (${signal ?? `exit ${status}`})`);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
