// A machine where no SQLite loads: npm left better-sqlite3 out (it could not build it: no compiler)
// or `npm ci --ignore-scripts` left it unbuilt, and this Node (20, as the suite runs) has no SQLite of
// its own (src/server/store/sqlite-driver.ts). Commands against a server work; a command that needs
// the local database says in one line what to do, exit 2.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, createHome, STACK_LINE, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let pkg: string;
let fx: FlowiseFixture;

beforeAll(async () => {
  // The built package with node_modules as such an install leaves it: everything but better-sqlite3.
  pkg = mkdtempSync(join(tmpdir(), 'chatflow-no-sqlite-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
  mkdirSync(join(pkg, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (!name.startsWith('better-sqlite3')) symlinkSync(join(ROOT, 'node_modules', name), join(pkg, 'node_modules', name));
  }
  fx = await startFlowiseFixture();
});
afterAll(async () => {
  await fx?.close();
  rmSync(pkg, { recursive: true, force: true });
});

const run = async (args: string[], opts: CliOptions = {}) => {
  const r = await execa(process.execPath, [join(pkg, 'bin', 'chatflow.js'), ...args], { reject: false, extendEnv: false, env: cliEnv(opts), stdin: 'ignore', stripFinalNewline: false, timeout: 20_000 });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
};

/** The one line, for the database `db`, ending with what the command's user can do instead. */
const noSqlite = (db: string, instead: string) =>
  `chatflow: no SQLite to open ${db} with: better-sqlite3 is not built and Node ${process.version} has no SQLite of its own; ` +
  `install build tools (python3, make, g++) and run npm ci again, use Node 24 or later, or ${instead}\n`;

describe('no SQLite on this machine', () => {
  it('commands against a server run: list, set, get', async () => {
    const remote = { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } };
    const listed = await run(['variables', 'list', '-o', 'json'], remote);
    expect([listed.exitCode, listed.stderr]).toEqual([0, '']);
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBeGreaterThan(0);
    const set = await run(['variables', 'set', 'NO_SQLITE', 'yes', '-o', 'json'], remote);
    expect(set.exitCode, set.stderr).toBe(0);
    const got = await run(['variables', 'get', 'NO_SQLITE', '-o', 'json'], remote);
    expect([got.exitCode, (JSON.parse(got.stdout) as { value: string }).value]).toEqual([0, 'yes']);
  });

  it('a command on the embedded default: one line saying what to do, exit 2, no stack', async () => {
    const home = createHome();
    const r = await run(['variables', 'list'], { home });
    expect(r.stderr).toBe(noSqlite(join(home.dataDir, 'chatflow', 'chatflow.db'), 'point at a server with --url'));
    expect([r.exitCode, r.stdout]).toEqual([2, '']);
  });

  it('an import (the service on a thread): the same line, exit 2', async () => {
    const home = createHome();
    const file = join(home.dir, 'one.ndjson');
    writeFileSync(file, '{"kind":"variable","name":"A","value":"1"}\n');
    const r = await run(['import', file], { home, env: { CHATFLOW_DB: join(home.dir, 'x.db') } });
    expect(r.stderr).toBe(noSqlite(join(home.dir, 'x.db'), 'point at a server with --url'));
    expect(r.exitCode).toBe(2);
  });

  it('serve on SQLite: the line names PostgreSQL instead, exit 2', async () => {
    const home = createHome();
    const db = join(home.dir, 'serve.db');
    const r = await run(['serve', '--port', '0', '--db', db], { home });
    expect(r.stderr).toBe(noSqlite(db, 'use PostgreSQL with --database-url'));
    expect([r.exitCode, r.stdout]).toEqual([2, '']);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});
