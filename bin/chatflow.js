#!/usr/bin/env node
// Builtins are taken with process.getBuiltinModule, not `import`: an ES module import of a builtin
// builds its facade, which reads every export (node:fs's streams, node:process's stdin...).
const { readFileSync } = process.getBuiltinModule('node:fs');

// `chatflow --version` on its own, what scripts and installers run most, answers without
// loading the CLI at all.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const env = process.env;
  if (env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy) {
    // Behind a proxy requests go through undici, whose HTTP parser is WebAssembly; V8's optimising
    // tier compiles it on background threads that the process then waits for at exit (~150-300 ms
    // a command). The baseline compiler is plenty for a CLI's few responses.
    process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  }
  // Compile cache (Node 22.1+) makes later starts faster; Node 20 simply runs without it.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  // The bundle of the CLI (scripts/bundle.js, run by `npm run build`).
  const { main } = await import('../dist/bundle/main.js');
  process.exitCode = await main();
}
