// Bundles the CLI (run by `npm run build`, after tsc) into dist/bundle/: a start reads a few
// files instead of hundreds.
//
// - main.cjs: the whole CLI (definitions, handlers, the client) in one file. Handlers are still
//   imported only when their command runs: esbuild keeps each dynamic import a function that
//   evaluates its module on the first call, and one file costs less to read than many chunks.
//   CommonJS: bin/chatflow.js (CommonJS too) requires it, so a start never sets up Node's ES
//   module loader (its asynchronous reads, resolution and translation cost more than the file's
//   compile). server.cjs too (bin/bundles.js loads both, with Node's compile cache where it has
//   one); the other lazy parts are ES modules, import()ed.
// - The heavy parts are files of their own, read only when needed: server.cjs (the embedded
//   service and `serve`), vendor/undici.js (requests through a proxy), vendor/yaml.js, vendor/cli-table3.js
//   and vendor/inquirer-prompts.js. Tests see from the files loaded that a command did not load them.
// - server.cjs holds what a command answered in its own process runs, with the store's library
//   (kysely): one file of it starts several times faster than its hundreds of modules. fastify's
//   app and the schemas (typebox) are app.cjs, fastify with ajv and the rest of its own
//   vendor/fastify.cjs, each route's validators validators/rN.cjs: required only when needed (an
//   app built; a route's first request), so that a command parses none of them. The database drivers (native code, found by
//   path) and conf stay in node_modules.
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The lazy parts: output file -> its source (a CommonJS library's names must be listed). */
const LAZY = {
  // undici's own index also loads fetch, WebSocket, the caches and mocks (a megabyte, node:crypto,
  // and Node's built-in undici through the web globals): only the proxy agent and request() here,
  // wired as the index wires them.
  'vendor/undici': [
    'import EnvHttpProxyAgent from "undici/lib/dispatcher/env-http-proxy-agent.js";',
    'import Dispatcher from "undici/lib/dispatcher/dispatcher.js";',
    'import api from "undici/lib/api/index.js";',
    'import util from "undici/lib/core/util.js";',
    'Object.assign(Dispatcher.prototype, api);',
    'export { EnvHttpProxyAgent };',
    '/** undici.request(url, opts) for the dispatcher given in opts, as the index makes it. */',
    'export function request(url, opts) {',
    '  const u = util.parseURL(url);',
    '  const path = u.search ? `${u.pathname}${u.search}` : u.pathname;',
    '  return api.request.call(opts.dispatcher, { ...opts, origin: u.origin, path, method: opts.method || "GET" });',
    '}',
  ].join('\n'),
  'vendor/yaml': 'export { stringify } from "yaml";',
  'vendor/cli-table3': 'import Table from "cli-table3"; export default Table;',
  'vendor/inquirer-prompts': 'export { confirm, input, password, select } from "@inquirer/prompts";',
};
/**
 * vendor/fastify.cjs: fastify and its libraries (find-my-way, pino, ajv, fast-json-stringify…),
 * required by server.cjs only when an app is built (app.ts): a command answering in its own
 * process runs the routes without them (server/in-process.ts), and reads none of their megabyte.
 */
const FASTIFY = 'module.exports = require("fastify");';
/**
 * server.cjs: the service, CommonJS (bin/bundles.js loads it, as main.cjs). What a command
 * answered in its own process runs (server/in-process.ts: the routes without fastify, the store);
 * fastify's app, and the schemas it is built from, are app.cjs (APP), required when an app is
 * built: a command reads and parses neither (some 150 KB, the schema library's most of it).
 */
const SERVER = [
  'export const startServer = async (options) => (await import("./src/server/app.ts")).startServer(options);',
  'export { openInProcess } from "./src/server/in-process.ts";',
  'export { openStore } from "./src/server/open-store.ts";',
  'export { backupDatabase, checkDatabase, restoreDatabase } from "./src/server/store/sqlite-admin.ts";',
  // What app.cjs takes from here (APP_OWN): one copy of each module, so that its errors are the
  // classes the store and the routes throw.
  ...['answers', 'body', 'listing', 'ndjson', 'route-table', 'routing', 'routes/index', 'streamed-body', 'validation'].map((m) => `export * from "./src/server/${m}.ts";`),
].join('\n');
/** app.cjs: fastify's app (server/app.ts) and what only it uses; the rest it requires from server.cjs. */
const APP = 'export { buildApp, startServer } from "./src/server/app.ts";';
/** The modules of src/server/ that are app.cjs's own. */
const APP_OWN = new Set(['app', 'openapi', 'auth', 'request-log', 'retention']);
/** server.cjs's imports of the app go to app.cjs; app.cjs's of the rest of the service, to server.cjs. */
const appApart = (inApp) => ({
  name: 'app-apart',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.importer.includes('/node_modules/') || args.kind === 'entry-point') return undefined;
      const target = join(args.resolveDir, args.path).replace(/\.[jt]s$/, '');
      const rel = relative(join(root, 'src', 'server'), target);
      if (rel.startsWith('..')) return undefined;
      const own = APP_OWN.has(rel);
      if (inApp) return own ? undefined : { path: './server.cjs', external: true };
      return rel === 'app' ? { path: './app.cjs', external: true } : undefined;
    });
  },
});
/** What our code imports -> the file of the lazy part that answers it. */
const REDIRECT = [
  [/^undici$/, 'vendor/undici.js'],
  [/^yaml$/, 'vendor/yaml.js'],
  [/^cli-table3$/, 'vendor/cli-table3.js'],
  [/^@inquirer\/prompts$/, 'vendor/inquirer-prompts.js'],
  [/\/server\/(app|in-process|open-store|store\/sqlite-admin)\.js$/, 'server.cjs'],
];
const BUNDLED = new Set(['commander', 'chalk', 'undici', 'yaml', 'cli-table3', '@inquirer/prompts']);
const requireHere = createRequire(import.meta.url);

/**
 * better-sqlite3 is installed (an optional dependency: an install that could not build it leaves
 * it out, and the CLI builds and runs without it; src/server/store/sqlite-driver.ts).
 */
const hasBetterSqlite3 = (() => {
  try {
    requireHere.resolve('better-sqlite3');
    return true;
  } catch {
    return false;
  }
})();
/**
 * In server.cjs only (the service's own libraries; better-sqlite3 12.x's JavaScript too, where it
 * is installed, its addon still found by path: src/server/store/driver-v12.ts).
 */
const SERVICE = new Set(['fastify', 'fast-querystring', 'kysely', 'ajv', '@sinclair/typebox', ...(hasBetterSqlite3 ? ['better-sqlite3'] : [])]);
const external = [...Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter((d) => !BUNDLED.has(d)), 'pg-native'];

const BUILTIN = new RegExp(`^(node:)?(${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`);

/**
 * src/server/precompiled.ts in the bundles: every route's validators as ajv's standalone code,
 * compiled here by the service's own ajv set-up (dist/server/validation.js, which tsc has just
 * made), so that no command compiles a schema or loads ajv. Each route's are a file of their own,
 * dist/bundle/validators/rN.cjs, required on its first request: a command answers one route, and
 * server.cjs carrying them all (some 400 KB) cost each command answered in its own process their
 * parsing (Node 20 keeps no compile cache).
 *
 * Answers precompiled.ts's module and the validator files' sources (name -> CommonJS code).
 */
async function precompiledValidators() {
  const { makeAjv } = await import('../dist/server/validation.js');
  const { routeValidators } = await import('../dist/server/route-table.js');
  const standaloneCode = requireHere('ajv/dist/standalone').default;
  const routesByUrl = new Map();
  for (const { key, schema, httpPart } of routeValidators()) {
    const route = key.slice(0, key.length - httpPart.length - 1);
    if (!routesByUrl.has(route)) routesByUrl.set(route, []);
    routesByUrl.get(route).push({ key, schema, httpPart });
  }
  const files = {};
  const getters = [];
  for (const [i, parts] of [...routesByUrl.values()].entries()) {
    // Bodies typed, params and query strings coerced: one ajv each, one standalone module each.
    const code = ['body', 'text'].flatMap((kind) => {
      const mine = parts.filter((p) => (p.httpPart === 'body') === (kind === 'body'));
      if (mine.length === 0) return [];
      const ajv = makeAjv(kind === 'text', true);
      for (const p of mine) ajv.addSchema(p.schema, p.httpPart);
      const exported = Object.fromEntries(mine.map((p) => [p.httpPart, p.httpPart]));
      return [`(function (exports) {\n${standaloneCode(ajv, exported)}\n})(module.exports);`];
    });
    files[`r${i}`] = code.join('\n');
    for (const p of parts) getters.push(`get ${JSON.stringify(p.key)}() { return route(${JSON.stringify(`r${i}`)}).${p.httpPart}; }`);
  }
  const module = [
    'const made = new Map();',
    '// (A path built at run time: the bundler leaves this require to Node, which finds the file beside server.cjs.)',
    'const route = (file) => { let m = made.get(file); if (!m) made.set(file, (m = require(__dirname + "/validators/" + file + ".cjs"))); return m; };',
    `export const precompiled = {\n${getters.join(',\n')}\n};`,
  ].join('\n');
  return { module, files };
}
const PRECOMPILED = await precompiledValidators();
/**
 * src/server/route-table.ts in the bundles: its values as data, each route's parts without their
 * schemas (precompiled.ts has their validators), so that the schema library is loaded only with
 * fastify's app (`serve`).
 */
async function routeTableData() {
  const table = await import('../dist/server/route-table.js');
  const routeTable = Object.fromEntries(
    Object.entries(table.routeTable).map(([name, entry]) => [name, { ...entry, parts: Object.fromEntries(Object.keys(entry.parts).map((part) => [part, {}])) }]),
  );
  return [
    ...['DEFAULT_BODY_LIMIT', 'MAX_PARAM_LENGTH'].map((name) => `export const ${name} = ${JSON.stringify(table[name])};`),
    `export const routeTable = ${JSON.stringify(routeTable)};`,
    `export const validatorKey = ${table.validatorKey.toString()};`,
  ].join('\n');
}
const ROUTE_TABLE = await routeTableData();
/**
 * A builtin's exports, required on first use. In the CommonJS bundles a proxy of the banner's
 * (`__lazyBuiltin`), which the banner's __toESM hands out as it is; in the ES module ones (whose
 * __toESM is esbuild's, which copies every export it finds) each export (as this Node has them) a
 * getter.
 */
function lazyBuiltin(name, cjs) {
  const load = `let loaded; const load = () => (loaded ??= require(${JSON.stringify(name)}));`;
  if (cjs) return `${load}\nmodule.exports = __lazyBuiltin(load);`;
  const keys = Object.keys(requireHere(name));
  return `${load}\nfor (const key of ${JSON.stringify(keys)}) Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key] });`;
}

/**
 * Builtins a library requires when it loads but uses only for what we never or rarely ask of it:
 * required when first used instead.
 */
const LAZY_REQUIRES = [
  // commander: child_process for executable subcommands, which we do not use.
  ['/node_modules/commander/', /child_process$/],
  // fastify: https and http2 for servers of those kinds (ours are HTTP, or none: the embedded
  // service answers in-process), dns to resolve the host it listens on. Loading them (tls, crypto,
  // http2) cost each in-process command ~10 ms of a quiet machine's time.
  ['/node_modules/fastify/', /^(node:)?(https|http2|dns)$/],
];

/** server.cjs's imports of fastify go to its file of its own (FASTIFY). */
const fastifyApart = {
  name: 'fastify-apart',
  setup(b) {
    b.onResolve({ filter: /^fastify$/ }, (args) => (args.importer.includes('/node_modules/') || args.namespace === 'lazy' ? undefined : { path: './vendor/fastify.cjs', external: true }));
  },
};

/** `redirect`: send our code's imports of the lazy parts to their files. */
const plugin = (redirect) => ({
  name: 'chatflow',
  setup(b) {
    if (redirect) {
      b.onResolve({ filter: /./ }, (args) => {
        if (args.importer.includes('/node_modules/') || args.namespace === 'lazy' || args.kind === 'entry-point') return undefined;
        const hit = REDIRECT.find(([re]) => re.test(args.path));
        return hit ? { path: `./${hit[1]}`, external: true } : undefined;
      });
    }
    b.onResolve({ filter: /^lazy:/ }, (args) => ({ path: args.path.slice(5), namespace: 'lazy' }));
    // Node's builtins are required, not imported: an ES module import of a builtin builds its
    // facade, which reads every export (node:fs's streams, node:process's stdin, ...) at start.
    // And required when first used: each export is a getter (node:fs/promises, which loads
    // readline, costs nothing to a command that never reads a file through it).
    b.onResolve({ filter: BUILTIN }, (args) => {
      if (args.kind === 'require-call') {
        const lazy = LAZY_REQUIRES.some(([from, builtin]) => args.importer.includes(from) && builtin.test(args.path));
        return lazy ? { path: args.path, namespace: 'lazy-builtin' } : undefined;
      }
      return { path: args.path, namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: args.path.replace(/^node:/, '') === 'process' ? 'module.exports = process;' : lazyBuiltin(args.path, b.initialOptions.format === 'cjs'),
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = new Proxy({}, { get: (_, key) => require(${JSON.stringify(args.path)})[key] });`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) =>
      args.path.startsWith('validators/')
        ? { contents: PRECOMPILED.files[args.path.slice('validators/'.length)], resolveDir: root, loader: 'js' }
        : { contents: { ...LAZY, server: SERVER, app: APP, 'vendor/fastify': FASTIFY }[args.path], resolveDir: root, loader: 'ts' },
    );
    b.onLoad({ filter: /[/\\]src[/\\]server[/\\]precompiled\.ts$/ }, () => ({ contents: PRECOMPILED.module, resolveDir: root, loader: 'js' }));
    b.onLoad({ filter: /[/\\]src[/\\]server[/\\]route-table\.ts$/ }, () => ({ contents: ROUTE_TABLE, resolveDir: root, loader: 'js' }));
    // A require the bundler sees (the source's createRequire hides it from the bundler, for dist/).
    b.onLoad({ filter: /[/\\]src[/\\]server[/\\]store[/\\]driver-v12\.ts$/ }, () => ({ contents: 'export const requireV12 = () => require("better-sqlite3");', resolveDir: root, loader: 'js' }));
    // The import's reading thread's file: beside main.cjs, which starts it.
    b.onLoad({ filter: /[/\\]src[/\\]cli[/\\]import[/\\]reader-file\.ts$/ }, () => ({ contents: 'export const READER_THREAD = require("node:path").join(__dirname, "import-reader.cjs");', resolveDir: root, loader: 'js' }));
    // The parsing thread's file: beside server.cjs, which starts it.
    b.onLoad({ filter: /[/\\]src[/\\]server[/\\]ndjson-worker-file\.ts$/ }, () => ({ contents: 'export const NDJSON_WORKER = require("node:path").join(__dirname, "ndjson-worker.cjs");', resolveDir: root, loader: 'js' }));
    // The version, fixed at build time (version.ts finds package.json by a path a bundle moves).
    b.onLoad({ filter: /[/\\]src[/\\]version\.ts$/ }, () => ({ contents: `export const VERSION = ${JSON.stringify(pkg.version)};`, loader: 'ts' }));
  },
});

const common = {
  absWorkingDir: root,
  outdir: 'dist/bundle',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external,
  // CommonJS libraries inside an ES module bundle call require(): give them one (builtins too, below).
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
  sourcemap: 'linked',
  legalComments: 'none',
  // Less to read and parse on every start; names are kept, so a --debug stack still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  metafile: true,
};
/** main.cjs and server.cjs: CommonJS (see bin/bundles.js). */
const commonJs = {
  ...common,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import.meta.url (files found beside the bundle: the worker, completions/, the driver) as CommonJS knows it.
  // And esbuild's __toESM (renamed __esmCp below) once a module: it copies every export of a
  // CommonJS module into a new object at each import of it, and our modules import node:fs,
  // node:path, node:os ten times over: 300 KB of copies a start, a scavenge of the young heap.
  // (Its copies read the module's exports when used, so importers may share one.)
  // A builtin's facade (lazyBuiltin) is not copied at all: one proxy that requires the builtin on
  // first use. A getter for each export and a copy of them made main.cjs's load allocate some
  // 110 KB more (node:fs alone has a hundred exports), nearer the young heap's first scavenge.
  banner: {
    js:
      'const __chatflowMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' +
      ' var __lazyBuiltins = new WeakSet(), __lazyBuiltin = (load) => { const facade = new Proxy({}, { get: (_, key) => (key === "default" ? load() : load()[key]) }); __lazyBuiltins.add(facade); return facade; };' +
      ' var __esmCopies = [new WeakMap(), new WeakMap()], __toESM = (mod, nodeMode) => { if (__lazyBuiltins.has(mod)) return mod; if (mod === null || (typeof mod != "object" && typeof mod != "function")) return __esmCp(mod, nodeMode); const copies = __esmCopies[nodeMode ? 1 : 0]; let copy = copies.get(mod); if (!copy) copies.set(mod, (copy = __esmCp(mod, nodeMode))); return copy; };',
  },
  define: { 'import.meta.url': '__chatflowMeta.url' },
};

rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });
const results = await Promise.all([
  build({ ...commonJs, entryPoints: { main: 'src/cli/main.ts' }, plugins: [plugin(true)] }),
  build({
    ...commonJs,
    entryPoints: { server: 'lazy:server' },
    external: external.filter((d) => !SERVICE.has(d)),
    // Its imports of the drivers (CommonJS) become require()s: an import() would set up Node's ES
    // module loader, and the service's processes have no bin/bundles.js to import for them.
    supported: { 'dynamic-import': false },
    plugins: [fastifyApart, appApart(false), plugin(false)],
  }),
  // The import's reading thread (cli/import/reader.ts).
  build({ ...commonJs, entryPoints: { 'import-reader': 'src/cli/import/reader-thread.ts' }, plugins: [plugin(false)] }),
  // A streamed ingest's parsing thread (server/ndjson-thread.ts), with the validators as server.cjs has them.
  build({ ...commonJs, entryPoints: { 'ndjson-worker': 'src/server/ndjson-worker.ts' }, external: external.filter((d) => !SERVICE.has(d)), plugins: [plugin(false)] }),
  build({ ...commonJs, entryPoints: { app: 'lazy:app' }, external: external.filter((d) => !SERVICE.has(d)), plugins: [fastifyApart, appApart(true), plugin(false)] }),
  build({ ...commonJs, entryPoints: { 'vendor/fastify': 'lazy:vendor/fastify' }, external: external.filter((d) => !SERVICE.has(d)), plugins: [plugin(false)] }),
  // Each route's validators (precompiledValidators), with the few parts of ajv's runtime they require.
  build({
    ...common,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    banner: {},
    sourcemap: false,
    entryPoints: Object.fromEntries(Object.keys(PRECOMPILED.files).map((name) => [`validators/${name}`, `lazy:validators/${name}`])),
    external: external.filter((d) => !SERVICE.has(d)),
    plugins: [plugin(false)],
  }),
  build({
    ...common,
    entryPoints: Object.fromEntries(Object.keys(LAZY).map((out) => [out, `lazy:${out}`])),
    external: external.filter((d) => !SERVICE.has(d)),
    plugins: [plugin(false)],
  }),
]);
// esbuild's own __toESM gives way to the banner's (a name as long, so the source map still holds).
for (const name of ['main', 'server', 'app', 'ndjson-worker', 'import-reader']) {
  const file = new URL(`../dist/bundle/${name}.cjs`, import.meta.url);
  const code = readFileSync(file, 'utf8');
  const helper = 'var __toESM=(mod,isNodeMode,target)=>';
  if (code.split(helper).length !== 2) throw new Error(`${name}.cjs: expected esbuild's __toESM helper once`);
  writeFileSync(file, code.replace(helper, helper.replace('__toESM', '__esmCp')));
}
// main.cjs's dynamic imports go through bin/chatflow.js's `_cfImp` (a name as long as `import`, so
// the source map's columns still hold): server.cjs is then required (bin/bundles.js), and a start
// never sets up Node's ES module loader for it.
const mainFile = new URL('../dist/bundle/main.cjs', import.meta.url);
const mainCode = readFileSync(mainFile, 'utf8');
const imports = mainCode.match(/\bimport\((?=["'])/g)?.length ?? 0;
if (imports === 0 || /\bimport\((?!["'])/.test(mainCode)) throw new Error('main.cjs: expected only import("literal") calls to rewrite');
writeFileSync(mainFile, mainCode.replace(/\bimport\((?=["'])/g, '_cfImp('));

// empty.db: the database a first command on the embedded default copies (store/sqlite.ts,
// `template`), made by the migrations as any new file is: the current schema, WAL, no data. A
// machine with no SQLite (store/sqlite-driver.ts) builds without it: remote commands need none.
const { sqliteDriver } = await import('../dist/server/store/sqlite-driver.js');
let sqlite = true;
try {
  sqliteDriver();
} catch (err) {
  if (err.code !== 'CHATFLOW_NO_SQLITE') throw err;
  sqlite = false;
  const { eitherOf } = await import('../dist/server/open-store.js');
  console.warn(`note: ${err.message}: built for commands against a server (--url) only; for the local database, ${eitherOf(err.remedies)}`);
}
if (sqlite) {
  const { openStore } = await import('../dist/server/open-store.js');
  const emptyDb = fileURLToPath(new URL('../dist/bundle/empty.db', import.meta.url));
  await (await openStore({ dbPath: emptyDb })).close();
  // (A new database is made 0600; the package's copy of it is for every user to read.)
  chmodSync(emptyDb, 0o644);
}

if (process.env.CHATFLOW_BUNDLE_META) {
  writeFileSync(process.env.CHATFLOW_BUNDLE_META, JSON.stringify({ outputs: Object.assign({}, ...results.map((r) => r.metafile.outputs)) }));
}
