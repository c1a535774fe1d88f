// `chatflow db check|backup|restore` on the embedded default's database, beside other commands that
// read and write it: a backup is one moment's data, a restore is seen whole or not at all, and a
// file that is not a sound chatflow database is refused before anything changes.
import { closeSync, existsSync, openSync, readdirSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { createHome, runCli } from '../helpers/cli.js';
import { dbOf, names, ok } from '../helpers/embedded-db.js';
import { openSqliteFile } from '../helpers/sqlite-file.js';


describe('chatflow db', { timeout: 120_000 }, () => {
  it('check: integrity, schema and counts; exit 1 naming the fix when damaged; a clear line when there is none', async () => {
    const home = createHome();
    const none = await runCli(['db', 'check'], { home });
    expect([none.exitCode, none.stderr]).toEqual([1, `chatflow: the database ${dbOf(home)} does not exist\n`]);
    await ok(home, ['demo', '--messages', '100']);
    const report = JSON.parse(await ok(home, ['db', 'check', '-o', 'json'])) as Record<string, unknown>;
    expect(report).toMatchObject({ database: dbOf(home), integrity: 'ok', messages: 220, variables: 3, assistants: 2 });
    expect(report.schema).toMatch(/^(\d+) of \1$/);
    // A page of the message table's index overwritten: SQLite's own check finds it.
    const db = openSqliteFile(dbOf(home));
    const [{ rootpage }] = db.prepare("select rootpage from sqlite_schema where name = 'chat_message_flow_date'").all([]) as { rootpage: number }[];
    const pageSize = Number((db.prepare('pragma page_size').all([])[0] as { page_size: number }).page_size);
    db.close();
    const fd = openSync(dbOf(home), 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x55), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const damaged = await runCli(['db', 'check'], { home });
    expect(damaged.exitCode).toBe(1);
    expect(damaged.stderr).toMatch(/^chatflow: the database .* is damaged \(.+\): restore a backup \(chatflow db restore FILE\)\n$/);
  });

  it('backup while other commands write: one moment\'s data, a single 0600 file, sound; an existing file is not overwritten', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'FIRST', '1']);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) await ok(home, ['variables', 'set', `W${i}`, String(i)]);
    })();
    const file = join(home.dir, 'backup.db');
    await ok(home, ['db', 'backup', file]);
    writing = false;
    await writer;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(home.dir).filter((n) => n.startsWith('backup.db'))).toEqual(['backup.db']);
    const again = await runCli(['db', 'backup', file], { home });
    expect([again.exitCode, again.stderr]).toEqual([1, `chatflow: ${file} exists already: name a new file\n`]);
    // What the backup holds, restored elsewhere: sound, and a start of what was written.
    const other = createHome();
    await ok(other, ['db', 'restore', file, '--yes']);
    const kept = await names(other);
    expect(kept).toContain('FIRST');
    const all = await names(home);
    expect(kept.every((n) => all.includes(n))).toBe(true);
  });

  it('restore refuses what is not a sound chatflow database of this version, changing nothing', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'KEPT', '1']);
    const junk = join(home.dir, 'junk.db');
    writeFileSync(junk, 'not a database at all, not even close to one'.repeat(200));
    const foreign = join(home.dir, 'foreign.db');
    const f = openSqliteFile(foreign);
    f.exec('create table t (x); insert into t values (1)');
    f.close();
    const newer = join(home.dir, 'newer.db');
    await ok(home, ['db', 'backup', newer]);
    const n = openSqliteFile(newer);
    n.exec("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01')");
    n.close();
    for (const [file, said] of [
      [junk, 'is not a sound SQLite database'],
      [foreign, 'is not a chatflow database'],
      [newer, 'was made by a newer chatflow'],
      [join(home.dir, 'missing.db'), 'cannot read'],
    ] as const) {
      const r = await runCli(['db', 'restore', file, '--yes'], { home });
      expect([r.exitCode, r.stderr]).toEqual([said === 'cannot read' ? 2 : 1, expect.stringContaining(said)]);
    }
    expect(await names(home)).toEqual(['KEPT']);
    expect(readdirSync(join(home.dataDir, 'chatflow'))).toEqual(['chatflow.db']);
  });

  it('a database a newer chatflow has migrated is said to be one, and left as it is', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'KEPT', '1']);
    const n = openSqliteFile(dbOf(home));
    n.exec("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01')");
    n.close();
    const r = await runCli(['variables', 'list'], { home });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^chatflow: cannot open the database .*: it was made by a newer chatflow \(its schema has 9999_from_the_future\): open it with that version or a newer one\n$/);
    const db = openSqliteFile(dbOf(home));
    expect(db.prepare('select count(*) as n from kysely_migration').get()).toEqual({ n: 9 });
    db.close();
  });

  it('restore --dry-run changes nothing; without --yes and no terminal it refuses', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'OLD', '1']);
    const file = join(home.dir, 'backup.db');
    await ok(home, ['db', 'backup', file]);
    await ok(home, ['variables', 'set', 'NEW', '1']);
    const dry = await runCli(['db', 'restore', file, '--dry-run'], { home });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('nothing was changed');
    const refused = await runCli(['db', 'restore', file], { home });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(await names(home)).toEqual(['NEW', 'OLD']);
  });

  it('restore while other commands read and write: none fails, each sees the old data or the new, the old kept as .bak-<time>', async () => {
    const home = createHome();
    await ok(home, ['variables', 'set', 'A', '1']);
    const file = join(home.dir, 'backup.db');
    await ok(home, ['db', 'backup', file]);
    await ok(home, ['variables', 'set', 'B', '1']);
    await ok(home, ['demo', '--messages', '2000']);
    const before = (await names(home)).join(',');
    const after = 'A';
    let running = true;
    const seen = new Set<string>();
    const failures: string[] = [];
    const readers = [0, 1].map(async () => {
      while (running) {
        const r = await runCli(['variables', 'list', '-o', 'json'], { home });
        if (r.exitCode !== 0) failures.push(r.stderr);
        else seen.add((JSON.parse(r.stdout) as { name: string }[]).map((v) => v.name).sort().join(','));
      }
    });
    const lister = (async () => {
      while (running) {
        const r = await runCli(['messages', 'list', 'demo-support-bot', '-o', 'json'], { home });
        if (r.exitCode !== 0) failures.push(r.stderr);
        // (A list is read a batch of 1,000 at a time, each batch the data of its moment: one that
        // runs across the restore has the old data's first batches, then none of the new.)
        else expect([0, 1000, 2000]).toContain(new Set((JSON.parse(r.stdout) as { id: string }[]).map((m) => m.id)).size);
      }
    })();
    // Until each reader has seen the old data once, then the restore.
    while (!seen.has(before)) await new Promise((r) => setTimeout(r, 20));
    // A copy left by a restore cut short (Ctrl-C): its process gone, the next restore removes it.
    const ended = execa(process.execPath, ['-e', '0']);
    const gone = ended.pid!;
    await ended;
    const left = join(home.dataDir, 'chatflow', `.chatflow.db.restore-${gone}`);
    writeFileSync(left, 'a copy of a restore cut short');
    const restored = await runCli(['db', 'restore', file, '--yes'], { home });
    // And until a reader has seen the new.
    while (!seen.has(after) && failures.length === 0) await new Promise((r) => setTimeout(r, 20));
    running = false;
    await Promise.all([...readers, lister]);
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(failures).toEqual([]);
    expect([...seen].sort()).toEqual([after, before].sort());
    const files = readdirSync(join(home.dataDir, 'chatflow'));
    const bak = files.find((n) => /^chatflow\.db\.bak-\d{4}-\d\d-\d\dT[\d-]+Z$/.test(n));
    expect(bak, files.join(' ')).toBeDefined();
    expect(restored.stderr).toContain(`the data before are kept in ${join(home.dataDir, 'chatflow', bak!)}`);
    expect(statSync(join(home.dataDir, 'chatflow', bak!)).mode & 0o777).toBe(0o600);
    const report = JSON.parse(await ok(home, ['db', 'check', '-o', 'json'])) as Record<string, unknown>;
    expect(report).toMatchObject({ integrity: 'ok', variables: 1, messages: 0 });
    expect(existsSync(`${dbOf(home)}-wal`)).toBe(false);
    expect(existsSync(left)).toBe(false);
  });
});
