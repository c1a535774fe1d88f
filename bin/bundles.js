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

/** The shipped cache of `file` (of this hash: its HASH_LINE) for this Node and this kind of run. */
function shippedCache(file, hash) {
  return path.join(path.dirname(file), 'code-cache', `${path.basename(file)}-${kind}-${hash}-${process.version}-${process.arch}.bin`);
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
  // (The bundles are ASCII: esbuild escapes the rest. The bytes are kept for hashOf.)
  const bytes = fs.readFileSync(file);
  const source = bytes.toString('latin1');
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
  const { size, mtimeMs } = fs.statSync(file);
  const hash = HASH_LINE.exec(source.slice(-100))?.[1] ?? 'unhashed';
  const dir = path.join(home, 'chatflow', 'code-cache');
  const stem = path.basename(file).replace(/\..*$/, '');
  const key = `${stem}-${hash}-${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}`;
  // The user's cache, when there is one (the shipped one did not fit, once), else the shipped one;
  // each tried once before it is trusted (see trial). (One compile: V8 keeps a script it
  // compiled, and a second try would not even read its cache.)
  let cachedData;
  if (!training) {
    const own = ownDir(home) ? dir : undefined;
    if (own) {
      const user = path.join(own, `${key}.bin`);
      cachedData = trial(user, path.join(own, key));
      // (One that crashed is of no more use; a new one is written at this run's exit.)
      if (cachedData === false) fs.rmSync(user, { force: true });
    }
    if (!cachedData) {
      const shipped = shippedCache(file, hash);
      // (A shipped cache is checked against its bundle's hash once, when first tried: the
      // bundle's own line names the hash of the code it was built with, and an edit in place
      // that left its length alone would otherwise run with the cache of the old code.)
      const marks = `shipped-${path.basename(file)}-${kind}-`;
      cachedData = own ? trial(shipped, path.join(own, `${marks}${hash}-${size}-${Math.trunc(mtimeMs)}`), () => hashOf(bytes) === hash, marks) : readOrNone(shipped);
    }
    cachedData ||= undefined;
  }
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  scripts.set(file, script);
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  if ((!cachedData || script.cachedDataRejected) && !training) {
    // At exit (a command may end with process.exit), when the functions that ran are compiled.
    process.once('exit', () => writeUserCache(script, { home, dir, key, stem }));
  }
  return mod.exports;
}

/** The last line of a built bundle: the hash of what comes before it (scripts/bundle.js). */
const HASH_LINE = /\/\/# chatflow-bundle=([0-9a-f]+)\s*$/;

/** What HASH_LINE holds: SHA-256 of the bundle's bytes up to that line, 16 hex digits (some 1 ms for both bundles). */
function hashOf(bytes) {
  const end = bytes.lastIndexOf('//# chatflow-bundle=');
  return require('node:crypto').createHash('sha256').update(end < 0 ? bytes : bytes.subarray(0, end)).digest('hex').slice(0, 16);
}

/**
 * A cache is used only from a directory that is the user's alone: `chatflow` and `code-cache`
 * below the cache home, each a directory (not a link), the user's, writable by no one else; and
 * the cache home itself, if others may write there, sticky (no one can rename the user's
 * `chatflow` away and put another in its place). Another user's cache would run as this user.
 */
function ownDir(home) {
  const uid = process.getuid?.();
  try {
    // (Windows has no owners and modes of this kind: a profile's directories are its user's by their ACL.)
    if (uid === undefined) return lstatOrMake(path.join(home, 'chatflow', 'code-cache'), fs.statSync).isDirectory();
    const parent = lstatOrMake(home, fs.statSync);
    if ((parent.mode & 0o022) !== 0 && (parent.mode & 0o1000) === 0) return false;
    for (const dir of [path.join(home, 'chatflow'), path.join(home, 'chatflow', 'code-cache')]) {
      const st = lstatOrMake(dir);
      if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) return false;
    }
    return true;
  } catch {
    return false; // none, and none can be made
  }
}

function lstatOrMake(dir, stat = fs.lstatSync) {
  try {
    return stat(dir);
  } catch {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return stat(dir);
  }
}

/**
 * A cache's first use is a trial: `<mark>-<its size>-<its time>.try` is made before it, and
 * becomes `.ok` when the run ends (a V8 that crashes on a damaged cache, exit 133 or 139, never
 * gets there). A trial found at the start is one that crashed: that cache is not used again
 * (false), and the run compiles from the source. A cache written since (another time) is tried
 * anew. `fits` says whether the cache belongs to the bundle (asked once); the marks of earlier
 * caches of the kind, named from `earlier` on, go once a trial passes. Undefined: none.
 */
function trial(file, markStem, fits, earlier) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined; // none (yet)
  }
  try {
    const st = fs.fstatSync(fd);
    const mark = `${markStem}-${st.size}-${Math.trunc(st.mtimeMs)}`;
    if (fs.existsSync(`${mark}.ok`)) return fs.readFileSync(fd);
    if (fs.existsSync(`${mark}.try`)) return false;
    fs.writeFileSync(`${mark}.try`, '');
    // (Not this bundle's: the mark stays, and it is not looked at again.)
    if (fits && !fits()) return false;
    process.once('exit', () => {
      renameOrNone(`${mark}.try`, `${mark}.ok`);
      // (The marks of earlier builds' caches, starting with `earlier`, are of no more use.)
      if (earlier) for (const old of readdirOrNone(path.dirname(mark))) if (old.startsWith(earlier) && !old.startsWith(path.basename(mark))) fs.rmSync(path.join(path.dirname(mark), old), { force: true });
    });
    return fs.readFileSync(fd);
  } catch {
    return false; // a trial that cannot be recorded is not made
  } finally {
    fs.closeSync(fd);
  }
}

function readdirOrNone(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function renameOrNone(from, to) {
  try {
    fs.renameSync(from, to);
  } catch {
    // a full or read-only disk: tried again next time
  }
}

function readOrNone(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined; // none (yet)
  }
}

function writeUserCache(script, { home, dir, key, stem }) {
  try {
    if (!ownDir(home)) return;
    const temp = path.join(dir, `${key}.bin.${process.pid}`);
    fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temp, path.join(dir, `${key}.bin`));
    // Caches of other versions of the bundle, or of another Node, and earlier trials, are of no more use.
    for (const old of fs.readdirSync(dir)) if (old !== `${key}.bin` && old.startsWith(`${stem}-`)) fs.rmSync(path.join(dir, old), { force: true });
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
  /** scripts/train-code-cache.js: where the shipped cache of a built bundle goes. */
  shippedCache: (file) => shippedCache(file, HASH_LINE.exec(fs.readFileSync(file, 'latin1').slice(-100))[1]),
  /** scripts/bundle.js: the line that ends a built bundle. */
  hashLine: (bytes) => `//# chatflow-bundle=${hashOf(bytes)}\n`,
  /** scripts/train-code-cache.js: compile from the source, write no user cache, keep the caches of `runKind`. */
  train(runKind) {
    training = true;
    kind = runKind;
  },
};
