// Runs the built CLI to its end and measures it: wall clock, peak RSS and processor time (from
// /usr/bin/time; else peak RSS by polling /proc, and no processor time), the lines it printed and when a chosen line came. Shared by the benchmarks
// (bench/run.js runs only the scripts directly in bench/, not this folder).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TIME = '/usr/bin/time';

/**
 * `node script ...args` with `env`, to its exit (`runCli('-e', ['0'], …)` is the floor).
 * `scratch`: a directory for /usr/bin/time's report.
 * `countLines`: read stdout and count its lines; `firstLine`: the line (1-based) whose arrival is
 * timed, e.g. 2 for a table's first row under its header. `children`: a set the child is kept in
 * while it runs (so a benchmark can kill it on Ctrl-C). `onLine`: called with each line's text as it
 * comes (a check of what was printed). Answers { ms, rssMb, cpuMs, lines, firstMs }
 * (cpuMs: user and system time of all its threads; undefined without /usr/bin/time).
 */
export async function runCli(script, args, env, { scratch, countLines = false, firstLine, children, onLine } = {}) {
  const rssFile = join(scratch, 'rss.txt');
  const timed = existsSync(TIME);
  const [cmd, argv] = timed ? [TIME, ['-f', '%M %U %S', '-o', rssFile, process.execPath, script, ...args]] : [process.execPath, [script, ...args]];
  const started = performance.now();
  const read = countLines || firstLine !== undefined || onLine !== undefined;
  let partial = '';
  const child = spawn(cmd, argv, { env, stdio: ['ignore', read ? 'pipe' : 'ignore', 'pipe'] });
  children?.add(child);
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  let lines = 0;
  let firstMs;
  child.stdout?.on('data', (chunk) => {
    let from = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      lines++;
      if (lines === firstLine) firstMs = performance.now() - started;
      if (onLine) onLine(partial + chunk.toString('utf8', from, i)), (partial = ''), (from = i + 1);
    }
    if (onLine) partial += chunk.toString('utf8', from);
  });
  let polled = 0;
  const poll = timed
    ? undefined
    : setInterval(() => {
        try {
          const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (hwm) polled = Math.max(polled, Number(hwm[1]));
        } catch {
          // gone
        }
      }, 20);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  const ms = performance.now() - started;
  children?.delete(child);
  if (poll) clearInterval(poll);
  if (code !== 0) throw new Error(`chatflow ${args.join(' ')} exited ${code}: ${stderr}`);
  const [kb, user, system] = timed ? readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number) : [polled];
  return { ms, rssMb: kb / 1024, cpuMs: timed ? (user + system) * 1000 : undefined, lines, firstMs };
}
