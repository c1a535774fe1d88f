// The embedded default: no URL anywhere, so each invocation starts the service on the local
// SQLite database (under XDG_DATA_HOME, or CHATFLOW_DB) and what one invocation creates the next sees.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHome, runCli } from '../helpers/cli.js';

describe('the embedded service', () => {
  it('create, then a second invocation lists it; the database is under XDG_DATA_HOME', async () => {
    const home = createHome();
    const dbPath = join(home.dataDir, 'chatflow', 'chatflow.db');
    expect(existsSync(dbPath)).toBe(false);

    const created = await runCli(['variables', 'create', '--name', 'LOCAL', '--value', 'yes', '-o', 'json'], { home });
    expect(created.exitCode, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(existsSync(dbPath)).toBe(true);

    const listed = await runCli(['variables', 'list', '-o', 'json'], { home });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, name: 'LOCAL', value: 'yes' })]);
  });

  it('commands run at once on a new database all succeed, and each sees what it wrote', async () => {
    const home = createHome();
    // The first command of a fresh install, several at once: each creates the schema or waits for
    // the one that does, then writes; none may answer "database is locked".
    const names = ['ONE', 'TWO', 'THREE'];
    const set = await Promise.all(names.map((name, i) => runCli(['variables', 'set', name, String(i), '-o', 'json'], { home })));
    for (const r of set) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/locked|busy/i);
    }
    // Reads beside a write on the existing database.
    const [listed, again] = await Promise.all([
      runCli(['variables', 'list', '-o', 'json'], { home }),
      runCli(['variables', 'set', 'ONE', 'changed', '-o', 'json'], { home }),
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((v) => v.name).sort()).toEqual(['ONE', 'THREE', 'TWO']);
  });

  it('CHATFLOW_DB chooses the file; another home with the same file sees the data, the default file does not', async () => {
    const home = createHome();
    const dbPath = join(home.dir, 'elsewhere', 'custom.db');
    const created = await runCli(['variables', 'set', 'CUSTOM', '1', '-o', 'json', '--debug'], { home, env: { CHATFLOW_DB: dbPath } });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stderr).toContain(`(database ${dbPath})`);
    expect(existsSync(dbPath)).toBe(true);
    expect(existsSync(join(home.dataDir, 'chatflow', 'chatflow.db'))).toBe(false);

    const [sameFile, defaultFile] = await Promise.all([
      runCli(['variables', 'list', '-q'], { env: { CHATFLOW_DB: dbPath } }),
      runCli(['variables', 'list', '-q'], { home }),
    ]);
    expect(sameFile.exitCode, sameFile.stderr).toBe(0);
    expect(sameFile.stdout).toBe(`${JSON.parse(created.stdout).id}\n`);
    expect(defaultFile.exitCode, defaultFile.stderr).toBe(0);
    expect(defaultFile.stdout).toBe('');
  });
});
