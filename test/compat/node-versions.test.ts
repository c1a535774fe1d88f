// The CLI and the service on the other Node versions users run (22 and 24), not only on the Node
// that runs the tests (each fetched once, ./nodes.js), installed as a machine without a compiler
// has it (installedPackage): the embedded default (its first command, the demo, an export, an import
// on a thread, the db commands) and `serve` until SIGTERM. On Node 24.19 and later, better-sqlite3
// 12 aborted every one of these at exit (SIGABRT, exit 134, a native stack on stderr): see
// src/server/store/sqlite-driver.ts. (.ci/run also runs the store's tests on these Nodes.)
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, createHome, waitForLine, type CliHome } from '../helpers/cli.js';
import { fetched, nodeBinary, NODE_VERSIONS } from './nodes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The built package as an install on Node 22 or 24 without a compiler has it: no better-sqlite3
 * 12 (npm could not build it; `npm ci --ignore-scripts` leaves it unbuilt), and better-sqlite3 13,
 * prebuilt, in the version the lockfile names (npm on Node 20, where these tests install, skips
 * it: it asks for Node 22), beside links to the rest of node_modules. Node 24 runs the store on its
 * own SQLite, Node 22 on better-sqlite3 13 (src/server/store/sqlite-driver.ts).
 */
async function installedPackage(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'chatflow-compat-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (!name.startsWith('better-sqlite3') && name !== '.cache') symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  }
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { name?: string; version: string }> };
  const driver = lock.packages['node_modules/better-sqlite3-13']!;
  symlinkSync(await fetched(`${driver.name}@${driver.version}`), join(dir, 'node_modules', 'better-sqlite3-13'));
  return dir;
}

let pkg: string;
let BIN: string;
beforeAll(async () => {
  pkg = await installedPackage();
  BIN = join(pkg, 'bin', 'chatflow.js');
}, 300_000);
afterAll(() => rmSync(pkg, { recursive: true, force: true }));

const run = async (node: string, home: CliHome, args: string[], env: Record<string, string> = {}) => {
  const r = await execa(node, [BIN, ...args], {
    reject: false,
    extendEnv: false,
    env: cliEnv({ home, env }),
    stdin: 'ignore',
    timeout: 60_000,
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
};

/**
 * What a crash of the addon leaves on stderr instead of an answer; and node:sqlite's warning that
 * it is experimental (Node 22 prints it at its first load, which the driver's choice does).
 */
const UNCLEAN = /Assertion failed|Native stack trace|Segmentation fault|ExperimentalWarning/;

describe.each(NODE_VERSIONS)('Node %s', (version) => {
  it('the embedded default: a first command, the demo, export, import and the db commands, each exit 0', { timeout: 300_000 }, async () => {
    const node = await nodeBinary(version);
    const home = createHome();
    const steps: [string[], Record<string, string>?][] = [
      // The first command of a fresh install, in its own process.
      [['variables', 'set', 'MODEL', 'gpt-4o', '-o', 'json']],
      [['demo', '--messages', '500']],
      [['variables', 'list', '-o', 'json']],
      [['messages', 'list', 'demo-support-bot', '--limit', '2', '-o', 'json']],
      // An import runs the service on a thread of the CLI.
      [['export', '--out', join(home.dir, 'all.ndjson')]],
      [['import', join(home.dir, 'all.ndjson')], { CHATFLOW_DB: join(home.dir, 'copy.db') }],
      // The backup and restore of this Node's SQLite (VACUUM INTO, ATTACH).
      [['db', 'backup', join(home.dir, 'backup.db')]],
      [['db', 'restore', join(home.dir, 'backup.db'), '--yes']],
      [['db', 'check']],
    ];
    for (const [args, env] of steps) {
      const r = await run(node, home, args, env);
      expect([args.join(' '), r.exitCode, r.stderr]).toEqual([args.join(' '), 0, expect.not.stringMatching(UNCLEAN)]);
    }
    const listed = await run(node, home, ['variables', 'list', '-o', 'json']);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((v) => v.name)).toContain('MODEL');
    const copied = await run(node, home, ['messages', 'list', 'demo-support-bot', '-o', 'json'], { CHATFLOW_DB: join(home.dir, 'copy.db') });
    expect([copied.exitCode, copied.stderr]).toEqual([0, expect.not.stringMatching(UNCLEAN)]);
    // In order (this Node's SQLite joins each batch of the list itself, see store/engine.ts).
    const listed500 = JSON.parse(copied.stdout) as { id: string; createdDate: string }[];
    const key = (m: { id: string; createdDate: string }) => `${m.createdDate} ${m.id}`;
    expect(listed500.length).toBe(500);
    expect(listed500.map(key)).toEqual(listed500.map(key).sort());
  });

  it('serve answers, and ends on SIGTERM with exit 0', { timeout: 300_000 }, async () => {
    const node = await nodeBinary(version);
    const home = createHome();
    const server = execa(node, [BIN, 'serve', '--port', '0', '--db', join(home.dir, 'serve.db')], {
      reject: false,
      extendEnv: false,
      env: cliEnv({ home }),
      stdin: 'ignore',
    });
    try {
      const [, url] = await waitForLine(server.stdout!, /listening on (http:\/\/\S+)/, 60_000);
      for (let i = 0; i < 50; i++) {
        const res = await fetch(`${url}/api/v1/variables`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `V${i}`, value: 'x' }) });
        expect(res.status).toBe(200);
      }
      const listed = await run(node, home, ['variables', 'list', '-o', 'json', '--url', url!]);
      expect([listed.exitCode, (JSON.parse(listed.stdout) as unknown[]).length]).toEqual([0, 50]);
    } finally {
      server.kill('SIGTERM');
    }
    const ended = await server;
    expect([ended.exitCode, String(ended.stderr)]).toEqual([0, expect.not.stringMatching(UNCLEAN)]);
  });
});
