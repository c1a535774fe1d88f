// The embedded default: no URL anywhere, so each invocation starts the service on the local
// SQLite database (under XDG_DATA_HOME, or CHATFLOW_DB) and what one invocation creates the next sees.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/server/open-store.js';
import { BIN, cliEnv, copyPackage, createHome, runCli } from '../helpers/cli.js';
import { openSqliteFile, pragmaValue } from '../helpers/sqlite-file.js';

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

  it('a new database is a copy of the build\'s empty one, with the schema its migrations make; without that file, made by them', async () => {
    /** The schema of a database file, and when its migrations ran. */
    const inspect = (file: string) => {
      const db = openSqliteFile(file, { readonly: true });
      try {
        return {
          journal: pragmaValue(db, 'journal_mode'),
          schema: db.prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by name").all([]),
          migrated: (db.prepare('select name, timestamp from kysely_migration order by name').all([]) as { name: string; timestamp: string }[]),
        };
      } finally {
        db.close();
      }
    };
    const scratch = mkdtempSync(join(tmpdir(), 'chatflow-schema-'));
    try {
      const reference = join(scratch, 'migrated.db');
      await (await openStore({ dbPath: reference })).close();
      const expected = inspect(reference);

      const started = new Date().toISOString();
      const home = createHome();
      const r = await runCli(['variables', 'set', 'FIRST', '1'], { home });
      expect(r.exitCode, r.stderr).toBe(0);
      const copied = inspect(join(home.dataDir, 'chatflow', 'chatflow.db'));
      expect(copied.journal).toBe('wal');
      expect(copied.schema).toEqual(expected.schema);
      expect(copied.migrated.map((m) => m.name)).toEqual(expected.migrated.map((m) => m.name));
      // Migrated before this command: by the build.
      for (const m of copied.migrated) expect(m.timestamp < started, m.name).toBe(true);

      const pkg = copyPackage();
      rmSync(join(pkg, 'dist', 'bundle', 'empty.db'));
      const other = createHome();
      const made = await execa(process.execPath, [join(pkg, 'bin', 'chatflow.js'), 'variables', 'set', 'FIRST', '1'], { reject: false, extendEnv: false, env: cliEnv({ home: other }) });
      expect(made.exitCode, made.stderr).toBe(0);
      const migrated = inspect(join(other.dataDir, 'chatflow', 'chatflow.db'));
      expect(migrated.schema).toEqual(expected.schema);
      for (const m of migrated.migrated) expect(m.timestamp >= started, m.name).toBe(true);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('a command answering in its own process loads no HTTP, TLS, HTTPS, HTTP/2 or DNS module, nor ajv (the service listens on nothing, fastify is not built, the validators are precompiled)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatflow-builtins-'));
    try {
      // Node's own modules this process loaded, written to stderr at its exit.
      const hook = join(dir, 'builtins.cjs');
      writeFileSync(
        hook,
        `process.on('exit', () => process.stderr.write([...process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'BUILTIN ' + m.slice(13)), ...Object.keys(require.cache).map((f) => 'FILE ' + f)].join('\\n') + '\\n'));`,
      );
      const r = await execa(process.execPath, ['--require', hook, BIN, 'variables', 'set', 'LOCAL', '1'], { reject: false, extendEnv: false, env: cliEnv() });
      expect(r.exitCode, r.stderr).toBe(0);
      const builtins = r.stderr.split('\n').filter((l) => l.startsWith('BUILTIN ')).map((l) => l.slice(8));
      // (It ran the routes without fastify, whose loading requires node:http, and fetched nothing.)
      expect(builtins).toContain('stream');
      expect(builtins.filter((m) => /^(_?http.*|tls|https|http2|dns|_tls_wrap)$/.test(m))).toEqual([]);
      // Nor ajv: the bundle's validators are compiled at build time (one missing would require it).
      const files = r.stderr.split('\n').filter((l) => l.startsWith('FILE '));
      expect(files.some((f) => f.includes('better-sqlite3'))).toBe(true);
      expect(files.filter((f) => /node_modules[/\\]ajv[/\\]/.test(f))).toEqual([]);
      // Nor fastify's bundle (vendor/fastify.cjs, read only when an app is built).
      expect(files.filter((f) => /fastify/.test(f))).toEqual([]);
      // Of the bundle's files: the CLI, the service without the app and the schemas (app.cjs),
      // and the validators of the one route it answered, not those of every route.
      const bundled = files.filter((f) => /[/\\]dist[/\\]bundle[/\\]/.test(f)).map((f) => f.replace(/.*[/\\]dist[/\\]bundle[/\\]/, '').replace(/\\/g, '/'));
      expect(bundled.filter((f) => !f.startsWith('validators/')).sort()).toEqual(['main.cjs', 'server.cjs']);
      expect(bundled.filter((f) => f.startsWith('validators/'))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

  it('a CHATFLOW_DB that is not a database: one line naming the variable (these commands take no --db)', async () => {
    const home = createHome();
    const dbPath = join(home.dir, 'notes.db');
    writeFileSync(dbPath, 'not a database, some notes '.repeat(20));
    const r = await runCli(['variables', 'list'], { home, env: { CHATFLOW_DB: dbPath } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`chatflow: cannot open the database ${dbPath}: the file is not a chatflow database (choose another with CHATFLOW_DB)\n`);
  });

  it('an empty or relative XDG_DATA_HOME is ignored: the database goes under ~/.local/share, not where the command ran', async () => {
    const home = createHome();
    const cwd = join(home.dir, 'work');
    mkdirSync(cwd);
    for (const XDG_DATA_HOME of ['', 'relative/data']) {
      const r = await execa(process.execPath, [BIN, 'variables', 'set', 'WHERE', XDG_DATA_HOME || 'empty', '-o', 'json'], {
        cwd,
        reject: false,
        extendEnv: false,
        env: { ...cliEnv({ home }), XDG_DATA_HOME },
      });
      expect(r.exitCode, String(r.stderr)).toBe(0);
    }
    expect(existsSync(join(home.dir, '.local', 'share', 'chatflow', 'chatflow.db'))).toBe(true);
    expect(existsSync(join(cwd, 'chatflow'))).toBe(false);
    expect(existsSync(join(cwd, 'relative'))).toBe(false);
  });

  it('a long list streams in flat memory: 100,000 messages (110 MB) to /dev/null, the process stays far below that', async () => {
    const home = createHome();
    mkdirSync(join(home.dataDir, 'chatflow'));
    const store = await openStore({ dbPath: join(home.dataDir, 'chatflow', 'chatflow.db') });
    const content = 'How do I reset my password? '.repeat(36); // 1 KB a message
    const ROWS = 100_000;
    try {
      for (let from = 0; from < ROWS; from += 5_000) {
        const batch = Array.from({ length: 5_000 }, (_, i) => ({ id: `m${from + i}`, role: 'userMessage' as const, content: `${from + i} ${content}` }));
        await store.messages.ingest('flow-big', batch);
      }
    } finally {
      await store.close();
    }
    // Output to a file is written synchronously: the reader is as fast as it gets, the case where
    // the service used to outrun everything and pile the whole answer up in memory (320 MB here,
    // against 155 MB now).
    // The peak RSS is the process's own, read when it exits.
    const peak = 'data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>writeSync(2,`peak-rss-kb ${process.resourceUsage().maxRSS}\\n`))';
    const r = await execa(process.execPath, ['--import', peak, BIN, 'messages', 'list', 'flow-big', '-o', 'ndjson'], {
      reject: false, extendEnv: false, env: cliEnv({ home }), stdin: 'ignore', stdout: { file: '/dev/null' }, timeout: 120_000,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const kb = Number(/peak-rss-kb (\d+)/.exec(String(r.stderr))?.[1]);
    expect(kb / 1024).toBeLessThan(220);
  }, 180_000);
});
