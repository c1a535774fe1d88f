// Schemathesis (property-based testing from the OpenAPI document) against the real service on
// SQLite, with and without keys: every check, every phase, a fixed seed and a bounded number of
// cases so that a run is repeatable and takes a minute or two. Any failure fails the test with
// Schemathesis's own report. Checks narrowed on purpose are in schemathesis.toml, each with why.
//
// The tool installs offline from the wheels in tools/schemathesis/ (kept in the repository so that
// a fresh clone needs neither the network nor anything beside it), into a virtual environment under
// node_modules/.cache that `npm ci` starts afresh; CHATFLOW_SCHEMATHESIS names another copy.
// Missing, the test fails and says where it looked: it never skips.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOOL = process.env.CHATFLOW_SCHEMATHESIS ?? join(ROOT, 'tools', 'schemathesis', 'schemathesis');
const TOOL_ENV = { SCHEMATHESIS_VENV: process.env.SCHEMATHESIS_VENV ?? join(ROOT, 'node_modules', '.cache', 'schemathesis-venv') };
const KEY = 'sk-schemathesis-0123456789';
const SEED = '20260117';
/** Cases per operation in the fuzzing and stateful phases. */
const CASES = '5';

describe('Schemathesis finds nothing', () => {
  let dir: string;
  const servers: RunningServer[] = [];
  beforeAll(async () => {
    if (!existsSync(TOOL)) {
      throw new Error(`Schemathesis not found at ${TOOL}: set CHATFLOW_SCHEMATHESIS to its launcher`);
    }
    dir = mkdtempSync(join(tmpdir(), 'chatflow-schemathesis-'));
    servers.push(await startServer({ store: await openSqliteStore(join(dir, 'open.db')), port: 0 }));
    servers.push(await startServer({ store: await openSqliteStore(join(dir, 'keyed.db')), port: 0, apiKeys: [KEY] }));
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (server: RunningServer, headers: string[]) =>
    execa(
      TOOL,
      [
        '--config-file', join(ROOT, 'schemathesis.toml'),
        'run', `${server.url}/api/v1/openapi.json`,
        '--checks', 'all',
        '--phases', 'examples,coverage,fuzzing,stateful',
        '--max-examples', CASES,
        '--seed', SEED,
        '--generation-database', 'none',
        '--no-color',
        ...headers,
      ],
      { reject: false, all: true, env: { ...TOOL_ENV, NO_COLOR: '1' }, cwd: dir },
    );

  it('on a server with keys and on one without', { timeout: 15 * 60_000 }, async () => {
    // The first call installs the tool: once, before the two runs share it.
    const version = await execa(TOOL, ['--version'], { reject: false, all: true, env: TOOL_ENV });
    expect(version.exitCode, version.all).toBe(0);
    const [open, keyed] = await Promise.all([run(servers[0]!, []), run(servers[1]!, ['-H', `Authorization: Bearer ${KEY}`])]);
    expect(open.exitCode, `without keys:\n${open.all}`).toBe(0);
    expect(keyed.exitCode, `with keys:\n${keyed.all}`).toBe(0);
  });
});
