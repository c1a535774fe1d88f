#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import module from 'node:module';
import v8 from 'node:v8';

// `chatflow --version` on its own, what scripts and installers run most, answers without
// loading the CLI at all.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  // The HTTP client's parser is WebAssembly; V8's optimising tier compiles it on background
  // threads that the process then waits for at exit (~150-300 ms a command). The baseline
  // compiler is plenty for a CLI's few responses.
  v8.setFlagsFromString('--liftoff-only');
  // Compile cache (Node 22.1+) makes later starts faster; Node 20 simply runs without it.
  module.enableCompileCache?.();
  // The bundle of the CLI (scripts/bundle.js, run by `npm run build`).
  const { main } = await import('../dist/bundle/main.js');
  process.exitCode = await main();
}
