// The embedded default's database file, handled as operators do while the local service runs:
// removed (rm), replaced (mv), restored over (cp of a backup, the same inode), reached through a
// second name (ln). Each leaves the data the operator expects and an intact file; and the file is
// the user's alone.
import { chmodSync, copyFileSync, existsSync, linkSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { execSync as execSyncx } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, serviceFiles, type ServiceFiles, type ServiceInfo } from '../../src/cli/local-service.js';
import { BIN, cliEnv, createHome, runCli, type CliHome, type Env } from '../helpers/cli.js';

const SERVICE: Env = { CHATFLOW_NO_SERVICE: undefined, CHATFLOW_SERVICE_IDLE: '60' };
const started = new Set<number>();
afterAll(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGTERM');
});

async function waitFor(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 25))) if (ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

const dbOf = (home: CliHome) => join(home.dataDir, 'chatflow', 'chatflow.db');
const filesOf = (home: CliHome): ServiceFiles => serviceFiles(dbOf(home), cliEnv({ home, env: SERVICE }) as NodeJS.ProcessEnv)!;

async function ok(home: CliHome, args: string[], env: Env = SERVICE): Promise<string> {
  const r = await runCli(args, { home, env });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

const names = async (home: CliHome) => (JSON.parse(await ok(home, ['variables', 'list', '-o', 'json'])) as { name: string }[]).map((v) => v.name).sort();

/** A home whose local service runs and has written `written` itself (in its WAL, not yet in the file). */
async function serving(home: CliHome, written: string[]): Promise<number> {
  await ok(home, ['variables', 'set', 'FIRST', '1']);
  const files = filesOf(home);
  await waitFor('the local service', () => existsSync(files.info) && existsSync(files.socket));
  const { pid } = JSON.parse(readFileSync(files.info, 'utf8')) as ServiceInfo;
  started.add(pid);
  for (const name of written) {
    const r = await runCli(['variables', 'set', name, 'v', '--debug'], { home, env: SERVICE });
    expect(r.stderr).toContain('embedded service over');
  }
  expect(statSync(`${dbOf(home)}-wal`).size).toBeGreaterThan(0);
  return pid;
}

/** What SQLite itself says of the file, in a process of its own once no service holds it. */
async function integrity(home: CliHome): Promise<string> {
  await ok(home, ['service', 'stop', '--all']);
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(dbOf(home));
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join(', ');
  } finally {
    db.close();
  }
}

describe('the database file while the local service runs', { timeout: 60_000 }, () => {
  it('rm: the next command has a new, empty database, not the old one\'s journal; the service exits', async () => {
    const home = createHome();
    const pid = await serving(home, ['SECRET']);
    rmSync(dbOf(home));
    expect(await names(home)).toEqual([]);
    await ok(home, ['variables', 'set', 'NEW', '1']);
    await waitFor(`the old service ${pid} to exit`, () => !alive(pid));
    expect(await names(home)).toEqual(['NEW']);
    expect(await integrity(home)).toBe('ok');
  });

  it('mv other.db over it: the other database, whole, and what is written after', async () => {
    const home = createHome();
    const other = join(home.dir, 'other.db');
    await ok(home, ['variables', 'set', 'OTHER', '1'], { CHATFLOW_DB: other });
    const pid = await serving(home, ['SECRET']);
    renameSync(other, dbOf(home));
    expect(await names(home)).toEqual(['OTHER']);
    await ok(home, ['variables', 'set', 'AFTER', '1']);
    await waitFor(`the old service ${pid} to exit`, () => !alive(pid));
    expect(await names(home)).toEqual(['AFTER', 'OTHER']);
    expect(await integrity(home)).toBe('ok');
  });

  it('cp backup.db over it (the same file): the backup\'s data, not the commits made since', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'BACKED', '1'], {});
    const backup = join(home.dir, 'backup.db');
    copyFileSync(dbOf(home), backup);
    const pid = await serving(home, ['LATER', 'LATER2']);
    const inode = statSync(dbOf(home)).ino;
    copyFileSync(backup, dbOf(home));
    expect(statSync(dbOf(home)).ino).toBe(inode);
    expect(await names(home)).toEqual(['BACKED']);
    await ok(home, ['variables', 'set', 'AFTER', '1']);
    await waitFor(`the old service ${pid} to exit`, () => !alive(pid));
    expect(await names(home)).toEqual(['AFTER', 'BACKED']);
    expect(await integrity(home)).toBe('ok');
  });

  it('cp over it, with no command after: the service notices by itself, and leaves no journal of the old data', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'BACKED', '1'], {});
    const backup = join(home.dir, 'backup.db');
    copyFileSync(dbOf(home), backup);
    const pid = await serving(home, ['LATER']);
    copyFileSync(backup, dbOf(home));
    await waitFor(`the service ${pid} to exit`, () => !alive(pid), 5000).catch((e) => { console.log(readFileSync(`/proc/${pid}/stat`, 'utf8'), execSyncx(`ls -la ${home.dataDir}/chatflow ${home.cacheDir}/chatflow/run`)); throw e; });
    expect(existsSync(`${dbOf(home)}-wal`)).toBe(false);
    expect(await names(home)).toEqual(['BACKED']);
  });

  it('ln: a file of two names is refused by every command, and what was acknowledged stays', async () => {
    const home = createHome();
    const pid = await serving(home, ['KEPT']);
    const second = join(home.dir, 'second.db');
    linkSync(dbOf(home), second);
    for (const env of [SERVICE, { ...SERVICE, CHATFLOW_DB: second }]) {
      const r = await runCli(['variables', 'set', 'REFUSED', '1'], { home, env });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(/has 2 names \(hard links\).*remove the other names/);
    }
    await waitFor(`the service ${pid} to exit`, () => !alive(pid));
    rmSync(second);
    expect(await names(home)).toEqual(['FIRST', 'KEPT']);
    expect(await integrity(home)).toBe('ok');
  });
});

describe('the database file is the user\'s alone', { timeout: 60_000 }, () => {
  it('a new database: its directory 0700, the file and its journal 0600, whatever the umask', async () => {
    const home = createHome();
    // A umask that lets everyone read and write: the command runs under it (sh's umask, then exec).
    const r = await execa('/bin/sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, BIN, 'variables', 'set', 'SECRET', 's3cr3t'], { reject: false, extendEnv: false, env: cliEnv({ home }) });
    expect(r.exitCode, r.stderr).toBe(0);
    for (const file of [dbOf(home), `${dbOf(home)}-wal`, `${dbOf(home)}-shm`]) if (existsSync(file)) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.dataDir, 'chatflow')).mode & 0o777).toBe(0o700);
    expect(statSync(dbOf(home)).mode & 0o777).toBe(0o600);
    // Another local user, in a home others may enter (as most are), reads nothing of it.
    if (process.getuid?.() === 0) {
      for (const dir of [home.dir, home.dataDir]) chmodSync(dir, 0o755);
      const other = await execa(process.execPath, ['-e', 'process.stdout.write(require("node:fs").readFileSync(process.argv[1], "latin1"))', dbOf(home)], { reject: false, uid: 65534, gid: 65534 });
      expect(other.exitCode).not.toBe(0);
      expect(other.stderr).toContain('EACCES');
      expect(other.stdout).not.toContain('s3cr3t');
    }
    expect(r.stderr).not.toContain('warning');
  });

  it('an existing database open to others: each command warns, naming the fix', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'SECRET', 's3cr3t'], {});
    chmodSync(dbOf(home), 0o644);
    const r = await runCli(['variables', 'list', '-o', 'json'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    // (Its journal, made by this command, took the file's mode.)
    const db = dbOf(home);
    expect(r.stderr).toBe(`chatflow: warning: the database ${db} is open to other users (mode 644); run: chmod 600 ${db} ${db}-wal ${db}-shm\n`);
    chmodSync(dbOf(home), 0o600);
    expect((await runCli(['variables', 'list', '-o', 'json'], { home })).stderr).toBe('');
  });
});
