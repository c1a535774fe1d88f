// Loads the CLI's CommonJS bundles (dist/bundle/main.cjs, and server.cjs when a command answers
// in its own process) with their compiled code cached. CommonJS (bin/package.json says so).
//
// Compiling a bundle costs a start more than running what it needs: main.cjs is 300 KB, server.cjs
// (fastify, kysely, ajv) 1.4 MB. Node 22+ caches compiled code itself (module.enableCompileCache).
// On Node 20 each bundle runs as a vm.Script with a V8 code cache:
// - shipped: `npm run build` runs the common commands once in one process
//   (scripts/train-code-cache.js) and keeps what they compiled beside the bundle, one cache for
//   each kind of run (help, completion, a command), `code-cache/<bundle>-<kind>-<node
//   version>-<arch>.bin`, so that even the first command after an install compiles nothing;
// - the user's, `$XDG_CACHE_HOME/chatflow/code-cache/` (keyed by the Node version and the bundle's
//   size and time), written at a run's exit when there was none to use or V8 refused it (a build by
//   another Node, other V8 flags, a damaged file); once there, it is used before the shipped one.
// A refused cache costs only V8's check: the bundle is compiled from its source, as without one.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
// The CommonJS loader's Module: node:module is the same class with more on it, and requiring it
// loads Node's ES module loader and source maps (some 0.3 ms of every start). Node 20, which has
// no module.enableCompileCache (22.8+), needs only the loader's own, and its createRequire.
const Module = process.versions.node.startsWith('20.') ? module.constructor : require('node:module');

/** The scripts compiled here, by file: scripts/train-code-cache.js writes their caches. */
const scripts = new Map();
const loaded = new Map();
/** scripts/train-code-cache.js: compile from the source, write no user cache. */
let training = false;

/**
 * Which of the shipped caches fits this run: help, completion, a read (`GROUP list|ls|get`), or
 * another command. Each holds what its kind of run compiles: V8 reads the whole of a cache, and
 * one for every kind made help and completion, whose runs are short, slower than their own; a
 * list in its own process (the first command after an install, or after the local service idled
 * out) read and restored the code of writes and of the demo too (server.cjs's cache 904 KB, its
 * read cache 721 KB: the first command after an install 2.55× → 2.41-2.45× `node -e 0`).
 */
const READS = new Set(['list', 'ls', 'get']);
function kindOf(argv) {
  if (argv[0] === '__complete') return 'complete';
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) return 'help';
  return READS.has(argv[1]) ? 'read' : 'command';
}
let kind = kindOf(process.argv.slice(2));

/** The shipped cache of `file` for this Node and this kind of run. */
function shippedCache(file) {
  return path.join(path.dirname(file), 'code-cache', `${path.basename(file)}-${kind}-${process.version}-${process.arch}.bin`);
}

/** The bundle's exports (loaded once). */
function loadBundle(file) {
  let exports = loaded.get(file);
  if (!exports) loaded.set(file, (exports = compile(file)));
  return exports;
}

function compile(file) {
  // (Resolved as require() would: a test's module hook sees which bundles a command loads.)
  file = require.resolve(file);
  const env = process.env;
  // (An empty or relative XDG_CACHE_HOME is ignored, as the XDG rule says: never a cache in the working directory.)
  const home = (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined) || (env.HOME && path.join(env.HOME, '.cache'));
  if (Module.enableCompileCache || !home) {
    Module.enableCompileCache?.();
    return require(file);
  }
  const vm = require('node:vm');
  // (The bundles are ASCII: esbuild escapes the rest.)
  const source = fs.readFileSync(file, 'latin1');
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
  const { size, mtimeMs } = fs.statSync(file);
  const dir = path.join(home, 'chatflow', 'code-cache');
  const stem = path.basename(file).replace(/\..*$/, '');
  const name = `${stem}-${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.bin`;
  // The user's cache, when there is one (the shipped one did not fit, once), else the shipped one.
  // (One compile: V8 keeps a script it compiled, and a second try would not even read its cache.)
  const cachedData = training ? undefined : (readOrNone(path.join(dir, name)) ?? readOrNone(shippedCache(file)));
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  scripts.set(file, script);
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  if ((!cachedData || script.cachedDataRejected) && !training) {
    // At exit (a command may end with process.exit), when the functions that ran are compiled.
    process.once('exit', () => writeUserCache(script, { dir, name, stem }));
  }
  return mod.exports;
}

function readOrNone(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined; // none (yet)
  }
}

function writeUserCache(script, { dir, name, stem }) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = path.join(dir, `${name}.${process.pid}`);
    fs.writeFileSync(temp, script.createCachedData());
    fs.renameSync(temp, path.join(dir, name));
    // Caches of other versions of the bundle, or of another Node, are of no more use.
    for (const old of fs.readdirSync(dir)) if (old !== name && old.startsWith(`${stem}-`) && old.endsWith('.bin')) fs.rmSync(path.join(dir, old), { force: true });
  } catch {
    // a cache is an optimisation: a read-only or full disk goes without
  }
}

/**
 * What main.cjs's dynamic imports call (scripts/bundle.js rewrites them: a script restored from a
 * cache cannot import() by itself): our CommonJS bundles through loadBundle, the rest imported.
 */
function importer(bundleDir) {
  return (specifier) => {
    if (!specifier.startsWith('.')) return import(specifier);
    const file = path.join(bundleDir, specifier);
    if (file.endsWith('.cjs')) return new Promise((resolve) => resolve(loadBundle(file)));
    return import(require('node:url').pathToFileURL(file).href);
  };
}

module.exports = {
  loadBundle,
  importer,
  scripts,
  shippedCache,
  /** scripts/train-code-cache.js: compile from the source, write no user cache, keep the caches of `runKind`. */
  train(runKind) {
    training = true;
    kind = runKind;
  },
};
