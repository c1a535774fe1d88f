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
