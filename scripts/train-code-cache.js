// The shipped code cache (bin/bundles.js): run by scripts/bundle.js at the end of `npm run build`
// on Node 20 (Node 22+ caches compiled code itself), once for each kind of run (help, complete,
// command, read). Runs that kind's common commands in this one process (commands on the embedded
// service and against a server), then keeps what V8 compiled for them at its exit:
// dist/bundle/code-cache/<bundle>-<kind>-<node version>-<arch>.bin. A later start of that Node
// restores it instead of compiling, the first command after an install included.
//
// scripts/bundle.js runs it in a home of its own, with no local service (CHATFLOW_NO_SERVICE) and
// its output thrown away; a command that fails here fails the build.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const bundles = require('../bin/bundles.js');
const dir = fileURLToPath(new URL('../dist/bundle/', import.meta.url));

// The kind of run to train (bin/bundles.js keeps a cache for each): help, complete or command.
const kind = process.argv[2];
bundles.train(kind);
globalThis._cfImp = bundles.importer(dir);
const { main } = bundles.loadBundle(join(dir, 'main.cjs'));
const run = async (...args) => {
  const code = await main([process.execPath, 'chatflow', ...args]);
  if (code !== 0) throw new Error(`chatflow ${args.join(' ')}: exit ${code}`);
};

/** A server (as the local service or a remote one is reached), from dist/server: not server.cjs, whose cache is for a command's own process. */
async function withServer(work) {
  const [{ startServer }, { openStore }] = await Promise.all([import('../dist/server/app.js'), import('../dist/server/open-store.js')]);
  const server = await startServer({ store: await openStore({ dbPath: join(process.env.HOME, 'server.db') }), port: 0 });
  try {
    await work(server.url);
  } finally {
    await server.close();
  }
}

const KINDS = {
  async help() {
    await run('--help');
    await run('variables', '--help');
    await run('help', 'messages');
  },
  async command() {
    // The embedded service in this process: a new database (the first command after an install),
    // then the commands of the README on the demo's data.
    await run('variables', 'list', '-o', 'json');
    await run('demo');
    await run('variables', 'set', 'TRAINED', '1');
    await run('variables', 'list', '-o', 'json');
    await run('messages', 'list', 'demo-support-bot', '-o', 'json');
    await run('messages', 'list', 'demo-support-bot', '-o', 'table');
    await withServer(async (url) => {
      await run('demo', '--url', url);
      await run('variables', 'list', '-o', 'json', '--url', url);
      await run('messages', 'list', 'demo-support-bot', '-o', 'json', '--url', url);
    });
  },
  async read() {
    // A database of its own: the first list finds none (the first command after an install).
    process.env.XDG_DATA_HOME = join(process.env.HOME, 'read-data');
    await run('variables', 'list', '-o', 'json');
    // The demo's data made by another process, so that the demo's code is not kept here.
    const demo = spawnSync(process.execPath, [fileURLToPath(new URL('../bin/chatflow.js', import.meta.url)), 'demo'], { env: process.env, stdio: 'ignore' });
    if (demo.status !== 0) throw new Error(`chatflow demo: exit ${demo.status}`);
    await run('variables', 'list', '-o', 'json');
    await run('messages', 'list', 'demo-support-bot', '-o', 'json');
    await run('messages', 'list', 'demo-support-bot', '-o', 'table');
    await withServer(async (url) => {
      await fetch(`${url}/api/v1/variables`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"TRAINED_READ","value":"1"}' });
      await run('variables', 'list', '-o', 'json', '--url', url);
      await run('variables', 'get', 'TRAINED_READ', '-o', 'json', '--url', url);
    });
  },
  async complete() {
    await withServer(async (url) => {
      // (A variable for the ids it offers, made without the CLI: only completion's code is kept.)
      await fetch(`${url}/api/v1/variables`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"TRAINED","value":"1"}' });
      process.env.CHATFLOW_URL = url;
      // (Completion ends its process: handlers/completion.ts.)
      await run('__complete', '--', 'variables', 'delete', '');
    });
  },
};
if (!KINDS[kind]) throw new Error(`no such kind of run: ${kind}`);
// At the exit, when all ran (completion ends its process itself).
process.once('exit', (code) => {
  if (code !== 0) return;
  mkdirSync(join(dir, 'code-cache'), { recursive: true });
  for (const [file, script] of bundles.scripts) writeFileSync(bundles.shippedCache(file), script.createCachedData());
});
await KINDS[kind]();
