// The shipped code cache (bin/bundles.js): run by scripts/bundle.js at the end of `npm run build`
// on Node 20 (Node 22+ caches compiled code itself). Runs the commands people run most, in this one
// process, on the embedded service and against a server, then keeps what V8 compiled for them at
// its exit:
// dist/bundle/code-cache/<bundle>-<node version>-<arch>.bin. A later start of that Node restores
// it instead of compiling, the first command after an install included.
//
// scripts/bundle.js runs it in a home of its own, with no local service (CHATFLOW_NO_SERVICE) and
// its output thrown away; a command that fails here fails the build.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const bundles = require('../bin/bundles.js');
const dir = fileURLToPath(new URL('../dist/bundle/', import.meta.url));

bundles.train();
globalThis._cfImp = bundles.importer(dir);
const { main } = bundles.loadBundle(join(dir, 'main.cjs'));
const run = async (...args) => {
  const code = await main([process.execPath, 'chatflow', ...args]);
  if (code !== 0) throw new Error(`chatflow ${args.join(' ')}: exit ${code}`);
};

await run('--help');
await run('variables', '--help');
// The embedded service in this process: a new database (the first command after an install), then
// the commands of the README on the demo's data.
await run('variables', 'list', '-o', 'json');
await run('demo');
await run('variables', 'set', 'TRAINED', '1');
await run('variables', 'list', '-o', 'json');
await run('messages', 'list', 'demo-support-bot', '-o', 'json');
await run('messages', 'list', 'demo-support-bot', '-o', 'table');
// A server (as the local service or a remote one is reached).
const { startServer, openStore } = await globalThis._cfImp('./server.cjs');
const server = await startServer({ store: await openStore({ dbPath: join(process.env.HOME, 'server.db') }), port: 0 });
try {
  await run('demo', '--url', server.url);
  await run('variables', 'list', '-o', 'json', '--url', server.url);
  await run('messages', 'list', 'demo-support-bot', '-o', 'json', '--url', server.url);
} finally {
  await server.close();
}

// Last: completion ends its process (handlers/completion.ts), and the caches are written then.
process.once('exit', (code) => {
  if (code !== 0) return;
  mkdirSync(join(dir, 'code-cache'), { recursive: true });
  for (const [file, script] of bundles.scripts) writeFileSync(bundles.shippedCache(file), script.createCachedData());
});
await run('__complete', '--', 'va');
