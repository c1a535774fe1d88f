#!/usr/bin/env node
// CommonJS (bin/package.json says so), as is the bundle it loads (dist/bundle/main.cjs): Node runs
// both without setting up its ES module loader, which costs a start more than the code's compile.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// `chatflow --version` on its own, what scripts and installers run most, answers without
// loading the CLI at all (nor process.stdout's streams).
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const text = `${JSON.parse(fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8')).version}\n`;
  try {
    fs.writeSync(1, text);
  } catch {
    process.stdout.write(text); // a non-blocking stdout that was full (EAGAIN)
  }
} else {
  const bundles = require('./bundles.js');
  const dir = path.join(__dirname, '../dist/bundle');
  // The bundle's import()s (its lazy parts, the service, conf) come here (scripts/bundle.js rewrites them).
  globalThis._cfImp = bundles.importer(dir);
  const env = process.env;
  if (env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy) {
    // Behind a proxy requests go through undici, whose HTTP parser is WebAssembly; V8's optimising
    // tier compiles it on background threads that the process then waits for at exit (~150-300 ms
    // a command). The baseline compiler is plenty for a CLI's few responses.
    require('node:v8').setFlagsFromString('--liftoff-only');
  }
  const { main } = bundles.loadBundle(path.join(dir, 'main.cjs'));
  main().then((code) => {
    process.exitCode = code;
    // Once nothing is left to run, the process ends at once instead of through Node's teardown
    // (every handle closed, then the heap and the isolate freed: 20-40 ms where system calls are
    // slow). Not when another beforeExit listener is there (pino's flush under `serve`, a
    // test's hook): it may have just started more work, which the teardown lets finish.
    process.once('beforeExit', () => {
      if (process.listenerCount('beforeExit') === 0) process.exit();
    });
  });
}
