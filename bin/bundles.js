// Loads the CLI's CommonJS bundles (dist/bundle/main.cjs, and server.cjs when a command answers
// in its own process). CommonJS (bin/package.json says so).
//
// Compiling a bundle costs a start more than running what it needs: main.cjs is 380 KB, server.cjs
// 420 KB (app.cjs and the validators' files, which server.cjs requires, are cached alike). Node 22.1+ caches compiled code itself (module.enableCompileCache: keyed by the source,
// checked when read, never throwing; a damaged or foreign entry is compiled anew), pointed here at
// the user's own cache directory, `$XDG_CACHE_HOME/chatflow/compile-cache` (else ~/.cache/...),
// and never at Node's default in the shared temporary directory, where another user could plant
// entries. Node 20 (out of upstream support) keeps no cache: each start compiles.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const loaded = new Map();
let cacheTried = false;

/** The bundle's exports (loaded once). */
function loadBundle(file) {
  let exports = loaded.get(file);
  if (!exports) {
    if (!cacheTried) {
      cacheTried = true;
      enableCache();
    }
    // (Resolved as require() would: a test's module hook sees which bundles a command loads.)
    loaded.set(file, (exports = require(require.resolve(file))));
  }
  return exports;
}

/**
 * Node's compile cache in the user's own directory, where there is one. A cache is an
 * optimisation: nothing about it (a directory that cannot be made, is not the user's, or is
 * read-only; a full disk) may fail or slow a command, so any trouble means no cache.
 */
function enableCache() {
  // Node 20 has none; and loading node:module there brings its ES module loader (some 0.3 ms).
  if (process.versions.node.startsWith('20.')) return;
  try {
    const Module = require('node:module');
    if (typeof Module.enableCompileCache !== 'function') return;
    const dir = ownCacheDir(process.env);
    if (dir) Module.enableCompileCache(dir);
  } catch {
    // no cache
  }
}

/**
 * `chatflow/compile-cache` below the cache home, made if missing, when it is the user's alone:
 * `chatflow` and `compile-cache` each a directory (not a link), the user's, writable by no one
 * else; and the cache home itself writable by no one else unless sticky (as /tmp: no one can
 * rename the user's `chatflow` away and put another in its place). Another user's entries would
 * run as this user. Undefined: no cache.
 */
function ownCacheDir(env) {
  // (An empty or relative XDG_CACHE_HOME is ignored, as the XDG rule says: never a cache in the working directory.)
  const home = (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined) || (env.HOME && path.join(env.HOME, '.cache'));
  if (!home) return undefined;
  const dirs = [path.join(home, 'chatflow'), path.join(home, 'chatflow', 'compile-cache')];
  const uid = process.getuid?.();
  // (Windows has no owners and modes of this kind: a profile's directories are its user's by their ACL.)
  const parent = statOrMake(home, fs.statSync);
  if (uid === undefined) return dirs.every((dir) => statOrMake(dir, fs.statSync).isDirectory()) ? dirs[1] : undefined;
  if (!parent.isDirectory() || ((parent.mode & 0o022) !== 0 && (parent.mode & 0o1000) === 0)) return undefined;
  for (const dir of dirs) {
    const st = statOrMake(dir, fs.lstatSync);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) return undefined;
  }
  return dirs[1];
}

/** `dir`'s stat, once made (0700 whatever the umask; never its parent: a home that is not there gets no cache) if missing. */
function statOrMake(dir, stat) {
  try {
    return stat(dir);
  } catch {
    fs.mkdirSync(dir, { mode: 0o700 });
    return stat(dir);
  }
}

/**
 * What main.cjs's dynamic imports call (scripts/bundle.js rewrites them): our CommonJS bundles
 * through loadBundle (required, never through Node's ES module loader, whose set-up costs a start
 * more than the file's compile), the rest imported.
 */
function importer(bundleDir) {
  return (specifier) => {
    if (!specifier.startsWith('.')) return import(specifier);
    const file = path.join(bundleDir, specifier);
    if (file.endsWith('.cjs')) return new Promise((resolve) => resolve(loadBundle(file)));
    return import(require('node:url').pathToFileURL(file).href);
  };
}

module.exports = { loadBundle, importer };
