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
  const bundle = path.join(__dirname, '../dist/bundle/main.cjs');
  // The bundle's import()s (its lazy parts, conf) come here (scripts/bundle.js rewrites them).
  globalThis._cfImp = (specifier) =>
    import(specifier.startsWith('.') ? require('node:url').pathToFileURL(path.join(path.dirname(bundle), specifier)).href : specifier);
  const env = process.env;
  if (env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy) {
    // Behind a proxy requests go through undici, whose HTTP parser is WebAssembly; V8's optimising
    // tier compiles it on background threads that the process then waits for at exit (~150-300 ms
    // a command). The baseline compiler is plenty for a CLI's few responses.
    require('node:v8').setFlagsFromString('--liftoff-only');
  }
  const { main } = loadBundle(bundle);
  main().then((code) => {
    process.exitCode = code;
  });
}

/**
 * The bundle's exports. Compiling its 300 KB costs a start more than running what it needs, so
 * the compiled code is cached: Node 22+ does it itself (module.enableCompileCache); on Node 20 a
 * V8 code cache made after the first run (with the functions that run compiled) is kept in the
 * user's cache directory, keyed by the Node version and the bundle's size and time.
 */
function loadBundle(file) {
  const Module = require('node:module');
  const env = process.env;
  const home = env.XDG_CACHE_HOME || (env.HOME && path.join(env.HOME, '.cache'));
  if (Module.enableCompileCache || !home) {
    Module.enableCompileCache?.();
    return require(file);
  }
  const vm = require('node:vm');
  const source = fs.readFileSync(file, 'utf8');
  const { size, mtimeMs } = fs.statSync(file);
  const dir = path.join(home, 'chatflow', 'code-cache');
  const name = `main-${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.bin`;
  let cachedData;
  try {
    cachedData = fs.readFileSync(path.join(dir, name));
  } catch {
    // none yet
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  if (!cachedData || script.cachedDataRejected) {
    // At exit (a command may end with process.exit), when the functions that ran are compiled.
    process.once('exit', () => {
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        const temp = path.join(dir, `${name}.${process.pid}`);
        fs.writeFileSync(temp, script.createCachedData());
        fs.renameSync(temp, path.join(dir, name));
        // Caches of other versions of the bundle, or of another Node, are of no more use.
        for (const old of fs.readdirSync(dir)) if (old !== name && /^main-.*\.bin$/.test(old)) fs.rmSync(path.join(dir, old), { force: true });
      } catch {
        // a cache is an optimisation: a read-only or full disk goes without
      }
    });
  }
  return mod.exports;
}
