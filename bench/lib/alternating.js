// Start-up figures against a floor measured in the same run: each round runs every case once, in
// turn, so that load on the machine falls on all of them alike; prints the median of each and its
// ratio to the floor's (the first case), with the targets. Shared by bench/startup.js and
// bench/embedded.js.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `cases`: [{ name, args (for node), target? (× floor), env? () => extra environment for one run,
 * after? () => a promise awaited after a run, untimed (what the run left in the background) }],
 * the floor first. Prints a table under `title`; answers each case's median in ms.
 */
export async function alternate(title, cases, { runs, env }) {
  const times = cases.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, c] of cases.entries()) {
      const runEnv = c.env ? { ...env, ...c.env() } : env;
      const started = performance.now();
      await run(process.execPath, c.args, { env: runEnv });
      times[i].push(performance.now() - started);
      await c.after?.();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const medians = times.map(median);
  const floor = medians[0];
  console.log(`\n${title}: median of ${runs} alternating runs (wall clock), Node ${process.version}\n`);
  console.log(`${'command'.padEnd(52)} ${'ms'.padStart(6)} ${'× floor'.padStart(8)} ${'target'.padStart(7)}`);
  for (const [i, c] of cases.entries()) {
    const ratio = medians[i] / floor;
    const verdict = c.target === undefined ? '' : ratio <= c.target ? ' ok' : ' over';
    console.log(`${c.name.padEnd(52)} ${medians[i].toFixed(0).padStart(6)} ${ratio.toFixed(2).padStart(7)}× ${(c.target ? `≤${c.target}×` : '').padStart(7)}${verdict}`);
  }
  return medians;
}
