// The embedded default's database file as operators and other programs touch it: large deletes, an
// outside connection checkpointing beside the commands' writes, touch, rm, cp of a backup, a second
// name, a journal left without its file. Each command opens the file, works and closes it: what
// was acknowledged stays, and the file stays whole. And the file is the user's alone.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, createHome, runCli } from '../helpers/cli.js';
import { dbOf, names, ok } from '../helpers/embedded-db.js';
import { openSqliteFile, pragmaRows } from '../helpers/sqlite-file.js';


/** What SQLite itself says of the file, and a count, on a connection of the test's own. */
function look(path: string, count = 'select count(*) as n from chat_message'): { integrity: string; n: number } {
  const db = openSqliteFile(path);
  try {
    const integrity = (pragmaRows(db, 'integrity_check') as Record<string, string>[]).map((r) => Object.values(r)[0]).join(', ');
    return { integrity, n: Number((db.prepare(count).all([])[0] as { n: number }).n) };
  } finally {
    db.close();
  }
}

describe('the database file under heavy and outside use', { timeout: 120_000 }, () => {
  it('300,000 messages, then a delete of half: the file whole, the other half kept, every command after answers', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    // Seeded in one transaction (seconds); half in 2025, half in 2026.
    const db = openSqliteFile(dbOf(home));
    db.exec(`with recursive n(i) as (select 0 union all select i + 1 from n where i < 299999)
      insert into chat_message (id, role, chatflowid, content, chatType, chatId, createdDate)
      select printf('m%06d', i), 'userMessage', 'huge', 'hello ' || i, 'INTERNAL', 'chat' || (i % 997),
        strftime('%Y-%m-%dT%H:%M:%fZ', iif(i < 150000, '2025-01-01', '2026-01-01'), '+' || i || ' seconds') from n`);
    db.close();
    const r = await runCli(['messages', 'delete', 'huge', '--end-date', '2025-12-31', '--yes'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('150,000');
    for (const args of [['messages', 'list', 'huge', '--limit', '1', '-o', 'json'], ['stats', 'huge', '-o', 'json'], ['variables', 'set', 'AFTER', '1']]) await ok(home, args);
    expect(look(dbOf(home))).toEqual({ integrity: 'ok', n: 150_000 });
    expect(existsSync(`${dbOf(home)}-wal`)).toBe(false);
  });

  it('an outside connection checkpointing (TRUNCATE) without a pause beside writing commands: every acknowledged write kept', async () => {
    const home = createHome();
    const db = dbOf(home);
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    // Another program's connection, as `sqlite3 chatflow.db 'PRAGMA wal_checkpoint(TRUNCATE)'` in a loop.
    const storm = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require('better-sqlite3');
         let n = 0;
         for (;;) {
           const db = new Database(${JSON.stringify(db)});
           db.pragma('busy_timeout = 5000');
           for (let i = 0; i < 20; i++) { db.pragma('wal_checkpoint(TRUNCATE)'); if (++n === 50) process.stdout.write('storming\\n'); }
           db.close();
         }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        storm.stdout.once('data', () => resolve());
        storm.once('exit', (code) => reject(new Error(`the checkpointing process ended (${code})`)));
      });
      const acknowledged: string[] = [];
      const failed: string[] = [];
      await Promise.all(
        [0, 1].map(async (w) => {
          for (let i = 0; i < 15; i++) {
            const name = `W${w}_${i}`;
            const r = await runCli(['variables', 'set', name, String(i)], { home });
            (r.exitCode === 0 ? acknowledged : failed).push(r.exitCode === 0 ? name : `${name}: ${r.stderr}`);
          }
        }),
      );
      expect(failed).toEqual([]);
      const kept = new Set(await names(home));
      expect(acknowledged.filter((n) => !kept.has(n))).toEqual([]);
    } finally {
      storm.kill();
    }
    expect(look(db).integrity).toBe('ok');
  });

  it('touch, between commands and while they write: nothing lost', async () => {
    const home = createHome();
    const db = dbOf(home);
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    const written = ['FIRST'];
    let touching = true;
    const toucher = (async () => {
      while (touching) {
        utimesSync(db, new Date(), new Date());
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 10; i++) {
      await ok(home, ['variables', 'set', `T${i}`, 'v']);
      written.push(`T${i}`);
      await new Promise<void>((resolve, reject) => execFile('touch', [db], (err) => (err ? reject(err) : resolve())));
    }
    touching = false;
    await toucher;
    expect(await names(home)).toEqual(written.sort());
  });

  it('between commands the database is one file: after a first command that only reads, and after writes', async () => {
    const home = createHome();
    const files = () => readdirSync(join(home.dataDir, 'chatflow')).sort();
    expect(await names(home)).toEqual([]);
    expect(files()).toEqual(['chatflow.db']);
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    expect(files()).toEqual(['chatflow.db']);
  });

  it('a reader that stops early (| head) ends the command, which still leaves one file', async () => {
    const home = createHome();
    await ok(home, ['demo']);
    // The reader gone before the first row: the command's first write fails (EPIPE).
    const child = spawn(process.execPath, [BIN, 'messages', 'list', 'demo-support-bot', '-o', 'ndjson'], { env: cliEnv({ home }), stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdout.destroy();
    expect(await exited).toBe(0);
    expect(readdirSync(join(home.dataDir, 'chatflow')).sort()).toEqual(['chatflow.db']);
  });

  it('rm, cp of a backup, mv of another file between commands: the file at the path, as it is', async () => {
    const home = createHome();
    const db = dbOf(home);
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    copyFileSync(db, join(home.dir, 'backup.db'));
    await ok(home, ['variables', 'set', 'SINCE', '1']);
    copyFileSync(join(home.dir, 'backup.db'), db);
    expect(await names(home)).toEqual(['FIRST']);
    rmSync(db);
    expect(await names(home)).toEqual([]);
    await ok(home, ['variables', 'set', 'NEW', '1']);
    const other = createHome();
    await ok(other, ['variables', 'set', 'OTHER', '1']);
    copyFileSync(dbOf(other), join(home.dir, 'other.db'));
    const { renameSync } = await import('node:fs');
    renameSync(join(home.dir, 'other.db'), db);
    expect(await names(home)).toEqual(['OTHER']);
    expect(look(db, 'select count(*) as n from variable')).toEqual({ integrity: 'ok', n: 1 });
  });

  it('a file of two names (ln) is refused, and what was acknowledged stays', async () => {
    const home = createHome();
    const db = dbOf(home);
    await ok(home, ['variables', 'set', 'KEPT', '1']);
    const second = join(home.dir, 'second.db');
    linkSync(db, second);
    const r = await runCli(['variables', 'set', 'LOST', '1'], { home });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('hard links');
    rmSync(second);
    expect(await names(home)).toEqual(['KEPT']);
  });

  it('a journal beside no database (the file moved away while a program had it open) is refused and left where it is', async () => {
    const home = createHome();
    const db = dbOf(home);
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    rmSync(db);
    writeFileSync(`${db}-wal`, 'frames of another file');
    const r = await runCli(['variables', 'list', '-o', 'json'], { home });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`its journal ${db}-wal is there without it`);
    expect(existsSync(`${db}-wal`)).toBe(true);
    expect(existsSync(db)).toBe(false);
  });
});

describe("the database file is the user's alone", { timeout: 60_000 }, () => {
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
    await ok(home, ['variables', 'set', 'SECRET', 's3cr3t']);
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
