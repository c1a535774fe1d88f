// The local service (src/cli/local-service.ts), through the built CLI on the embedded default:
// invisible when it works (the same answers, over its socket), harmless when it fails (killed,
// foreign, another database, two commands at once, lost mid-request), and gone when idle.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { findService, serviceDir, serviceFiles, startService, type ServiceFiles, type ServiceInfo } from '../../src/cli/local-service.js';
import { VERSION } from '../../src/version.js';
import { BIN, cliEnv, createHome, runCli, STACK_LINE, type CliHome, type Env } from '../helpers/cli.js';

/** The default path: the service wanted (the helper turns it off), idling out soon after the tests. */
const SERVICE: Env = { CHATFLOW_NO_SERVICE: undefined, CHATFLOW_SERVICE_IDLE: '60' };
const started = new Set<number>();

afterAll(() => {
  // Each test stops what it started; this only catches a test that failed half-way.
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGTERM');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) if (ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

const dbOf = (home: CliHome) => join(home.dataDir, 'chatflow', 'chatflow.db');
const filesOf = (home: CliHome, env: Env = {}): ServiceFiles => serviceFiles(dbOf(home), cliEnv({ home, env }) as NodeJS.ProcessEnv)!;
const infoOf = (files: ServiceFiles): ServiceInfo => JSON.parse(readFileSync(files.info, 'utf8')) as ServiceInfo;

/** A home whose database exists, and the service the first command started, answering. */
async function running(env: Env = {}): Promise<{ home: CliHome; files: ServiceFiles; pid: number }> {
  const home = createHome();
  const first = await runCli(['variables', 'set', 'FIRST', '1', '--debug'], { home, env: { ...SERVICE, ...env } });
  expect(first.exitCode, first.stderr).toBe(0);
  expect(first.stderr).toContain('embedded service in this process');
  const files = filesOf(home, env);
  await waitFor('the local service', () => existsSync(files.info) && existsSync(files.socket));
  const { pid } = infoOf(files);
  started.add(pid);
  return { home, files, pid };
}

async function stopped(home: CliHome, pid: number, env: Env = {}): Promise<void> {
  const r = await runCli(['service', 'stop'], { home, env: { ...SERVICE, ...env } });
  expect(r.exitCode, r.stderr).toBe(0);
  await waitFor(`service ${pid} to exit`, () => !alive(pid), 10_000);
}

const names = (stdout: string) => (JSON.parse(stdout) as { name: string }[]).map((v) => v.name).sort();

/** An HTTP server on `socket` standing in for something that is not our service. */
async function impostor(socket: string, onRequest: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<{ server: Server; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    onRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { server, requests: () => n };
}

const FOREIGN = (_req: unknown, res: import('node:http').ServerResponse) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify([{ id: 'x', name: 'FOREIGN', value: 'planted', type: 'static', createdDate: '2026-01-01T00:00:00.000Z', updatedDate: '2026-01-01T00:00:00.000Z' }]));
};

describe('the local service', { timeout: 60_000 }, () => {
  it('the first command answers in its process and starts it; later ones answer over its socket, the same; status and stop', async () => {
    const { home, files, pid } = await running();
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    expect(statSync(files.socket).mode & 0o777).toBe(0o600);
    expect(existsSync(files.start)).toBe(false);

    const set = await runCli(['variables', 'set', 'SECOND', '2', '--debug'], { home, env: SERVICE });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stderr).toContain(`embedded service over ${files.socket} (database ${dbOf(home)})`);
    const listed = await runCli(['variables', 'list', '-o', 'json'], { home, env: SERVICE });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(names(listed.stdout)).toEqual(['FIRST', 'SECOND']);
    // The same data in a command that runs without it.
    const direct = await runCli(['variables', 'list', '-o', 'json'], { home });
    expect(names(direct.stdout)).toEqual(['FIRST', 'SECOND']);

    const status = await runCli(['service', 'status', '-o', 'json'], { home, env: SERVICE });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ pid, state: 'running', current: true, version: VERSION, database: dbOf(home), socket: files.socket })]);

    await stopped(home, pid);
    expect(existsSync(files.socket)).toBe(false);
    const after = await runCli(['service', 'status', '-o', 'json'], { home, env: SERVICE });
    expect(JSON.parse(after.stdout)).toEqual([]);
  });

  it('starts once the command that started it has exited: none of it runs beside that command, and the next command uses it', async () => {
    const home = createHome();
    const env = cliEnv({ home, env: SERVICE });
    const run = serviceDir(env as NodeJS.ProcessEnv);
    // The first command stays 3 s after its answer (a timer keeps it), looking every 50 ms for a
    // service's files, and says at its exit whether it saw any.
    const hook = join(home.dir, 'linger.cjs');
    writeFileSync(
      hook,
      `let lingered = false;
process.on('beforeExit', () => {
  if (lingered) return;
  lingered = true;
  const fs = require('node:fs');
  let seen = false;
  const timer = setInterval(() => { seen ||= fs.existsSync(${JSON.stringify(run)}) && fs.readdirSync(${JSON.stringify(run)}).some((n) => /\\.(json|sock)$/.test(n)); }, 50);
  setTimeout(() => { clearInterval(timer); process.stderr.write('service while the command ran: ' + seen + '\\n'); }, 3000);
});`,
    );
    const first = await execa(process.execPath, ['--require', hook, BIN, 'variables', 'set', 'FIRST', '1', '--debug'], { reject: false, extendEnv: false, env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain('embedded service in this process');
    expect(first.stderr).toContain('service while the command ran: false');

    const files = filesOf(home, SERVICE);
    await waitFor('the local service', () => existsSync(files.info) && existsSync(files.socket));
    const { pid } = infoOf(files);
    started.add(pid);
    const listed = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: SERVICE });
    expect(listed.stderr).toContain(`embedded service over ${files.socket}`);
    expect(names(listed.stdout)).toEqual(['FIRST']);
    await stopped(home, pid);
  });

  it('a command that found none does not start a second one when a service came up while it ran', async () => {
    const home = createHome();
    const made = await runCli(['variables', 'set', 'FIRST', '1'], { home, env: { CHATFLOW_NO_SERVICE: '1' } });
    expect(made.exitCode, made.stderr).toBe(0);
    const env = cliEnv({ home, env: SERVICE }) as NodeJS.ProcessEnv;
    const files = filesOf(home, SERVICE);
    // The command began before this service listened (findService found none), and ends after.
    expect(await findService(dbOf(home), env)).toEqual({ files });
    const { server } = await impostor(files.socket, FOREIGN);
    try {
      expect(startService(files, dbOf(home), env)).toBe(false);
      expect(existsSync(files.start)).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('service stop right after the command that starts one: the service still starting is waited for, and stopped', async () => {
    const home = createHome();
    const first = await runCli(['variables', 'set', 'FIRST', '1'], { home, env: SERVICE });
    expect(first.exitCode, first.stderr).toBe(0);
    const stop = await runCli(['service', 'stop'], { home, env: SERVICE });
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stderr).toMatch(/^stopped the local service \d+/);
    const pid = Number(/service (\d+)/.exec(stop.stderr)![1]);
    started.add(pid);
    await waitFor(`service ${pid} to exit`, () => !alive(pid), 10_000);
    // Nothing started after it either.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const status = await runCli(['service', 'status', '-o', 'json'], { home, env: SERVICE });
    expect(JSON.parse(status.stdout)).toEqual([]);
  });

  it('killed (kill -9): the next command removes its stale socket, answers, and a new service starts', async () => {
    const { home, files, pid } = await running();
    process.kill(pid, 'SIGKILL');
    await waitFor('the kill', () => !alive(pid));
    expect(existsSync(files.socket)).toBe(true);

    const r = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: SERVICE });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('embedded service in this process');
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('debug: '))).toEqual([]);
    expect(names(r.stdout)).toEqual(['FIRST']);

    await waitFor('a new service', () => existsSync(files.info) && infoOf(files).pid !== pid && existsSync(files.socket));
    const again = infoOf(files).pid;
    started.add(again);
    const next = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: SERVICE });
    expect(next.stderr).toContain(`over ${files.socket}`);
    await stopped(home, again);
  });

  it('a socket not ours is never used: in a directory others may enter, or owned by another user', async () => {
    const home = createHome();
    const made = await runCli(['variables', 'set', 'MINE', '1'], { home });
    expect(made.exitCode, made.stderr).toBe(0);
    const files = filesOf(home);
    mkdirSync(files.dir, { recursive: true });
    chmodSync(files.dir, 0o755);
    const fake = await impostor(files.socket, FOREIGN);
    try {
      const r = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: SERVICE });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('embedded service in this process');
      expect(names(r.stdout)).toEqual(['MINE']);
      expect(fake.requests()).toBe(0);

      // A directory of ours again, but the socket is another user's (only root can make one here).
      if (process.getuid?.() === 0) {
        chmodSync(files.dir, 0o700);
        chownSync(files.socket, 65534, 65534);
        const other = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: SERVICE });
        expect(other.exitCode, other.stderr).toBe(0);
        expect(names(other.stdout)).toEqual(['MINE']);
        expect(fake.requests()).toBe(0);
      }
    } finally {
      await new Promise((r) => fake.server.close(r));
    }
    // Nothing was started beside the planted socket, and it was left alone.
    expect(readdirSync(files.dir).filter((n) => n.endsWith('.json'))).toEqual([]);
  });

  it('a run directory others may write to, or another user\'s, is never used: XDG_RUNTIME_DIR without the sticky bit, a shared cache home', async () => {
    // An XDG_RUNTIME_DIR anyone may write to (no sticky bit: anyone could swap its chatflow
    // directory between a check and a connect): the service lives below the cache home instead.
    const home = createHome();
    const runtime = join(home.dir, 'runtime');
    mkdirSync(runtime);
    chmodSync(runtime, 0o777);
    const env = { ...SERVICE, XDG_RUNTIME_DIR: runtime };
    expect((await runCli(['variables', 'set', 'MINE', '1'], { home, env })).exitCode).toBe(0);
    const files = filesOf(home, env);
    expect(files.dir).toBe(join(home.cacheDir, 'chatflow', 'run'));
    await waitFor('the local service', () => existsSync(files.info));
    started.add(infoOf(files).pid);
    expect(existsSync(join(runtime, 'chatflow'))).toBe(false);
    await stopped(home, infoOf(files).pid, env);

    // A cache home every user may write to (sticky), where another user made chatflow/: nothing of
    // this user's goes there, and every command answers in its own process.
    if (process.getuid?.() === 0) {
      const shared = createHome();
      chmodSync(shared.cacheDir, 0o1777);
      mkdirSync(join(shared.cacheDir, 'chatflow'), { mode: 0o755 });
      chownSync(join(shared.cacheDir, 'chatflow'), 65534, 65534);
      for (let i = 0; i < 2; i++) {
        const r = await runCli(['variables', 'set', `MINE${i}`, '1', '--debug'], { home: shared, env: SERVICE });
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stderr).toContain('embedded service in this process');
      }
      expect(readdirSync(join(shared.cacheDir, 'chatflow'))).toEqual([]);
    }
  });

  it('another database or another version has a service of its own: a removed or replaced file is never answered by the old one', async () => {
    const { home, files, pid } = await running();
    expect(files.socket.split('/').pop()).toMatch(new RegExp(`^${VERSION.replace(/\./g, '\\.')}-[0-9a-f]{16}\\.sock$`));
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbOf(home) + suffix, { force: true });
    // The old service, asked at once, refuses untouched: its file is gone.
    const refused = await new Promise<{ status?: number; gone?: string }>((resolve, reject) =>
      request({ socketPath: files.socket, path: '/api/v1/variables' }, (res) => {
        res.resume();
        resolve({ status: res.statusCode, gone: res.headers['x-chatflow-local-service'] as string | undefined });
      })
        .on('error', reject)
        .end(),
    );
    expect(refused).toEqual({ status: 503, gone: 'removed' });

    // A new file at the path (its inode number may well be the old one's): only it answers.
    expect((await runCli(['variables', 'set', 'NEW', '1'], { home })).exitCode).toBe(0);
    const r = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: SERVICE });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(names(r.stdout)).toEqual(['NEW']);
    await waitFor(`the old service ${pid} to exit`, () => !alive(pid));
    const renewed = filesOf(home);
    expect(renewed.socket).not.toBe(files.socket);
    await waitFor('the new service', () => existsSync(renewed.info));
    started.add(infoOf(renewed).pid);
    await stopped(home, infoOf(renewed).pid);
  });

  it('commands at once: one service starts, every write is kept, none says "locked", with or without the service', async () => {
    const home = createHome();
    expect((await runCli(['variables', 'set', 'SEED', '0'], { home })).exitCode).toBe(0);
    const first = await Promise.all(['A', 'B', 'C', 'D'].map((n, i) => runCli(['variables', 'set', n, String(i)], { home, env: SERVICE })));
    for (const r of first) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/locked|busy/i);
    }
    const files = filesOf(home);
    await waitFor('the local service', () => existsSync(files.info) && existsSync(files.socket));
    const pid = infoOf(files).pid;
    started.add(pid);
    expect(readdirSync(files.dir).filter((n) => n.endsWith('.json'))).toHaveLength(1);

    // Through the service and in-process at once, on the same file.
    const both = await Promise.all(
      ['E', 'F', 'G', 'H', 'I', 'J'].map((n, i) => runCli(['variables', 'set', n, String(i)], { home, env: i % 2 ? SERVICE : {} })),
    );
    for (const r of both) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/locked|busy/i);
    }
    const listed = await runCli(['variables', 'list', '-o', 'json'], { home, env: SERVICE });
    expect(names(listed.stdout)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'SEED']);
    await stopped(home, pid);
  });

  it('lost mid-request: a read is answered in the command\'s process, a change fails saying it may have been made', async () => {
    const home = createHome();
    expect((await runCli(['variables', 'set', 'KEPT', '1'], { home })).exitCode).toBe(0);
    const files = filesOf(home);
    mkdirSync(files.dir, { recursive: true, mode: 0o700 });
    // A service of ours that dies with each request it gets (the connection cut, no answer).
    const dying = await impostor(files.socket, (req) => req.socket.destroy());
    try {
      const read = await runCli(['variables', 'list', '-o', 'json'], { home, env: SERVICE });
      expect(read.exitCode, read.stderr).toBe(0);
      expect(names(read.stdout)).toEqual(['KEPT']);
      expect(dying.requests()).toBe(1);

      const change = await runCli(['variables', 'create', '--name', 'MAYBE', '--value', '2'], { home, env: SERVICE });
      expect(change.exitCode).toBe(5);
      expect(change.stderr).toMatch(/the local service stopped while answering POST \(the change may or may not have been made\): check, then run the command again/);
      expect(change.stderr).not.toMatch(STACK_LINE);
      expect(change.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      await new Promise((r) => dying.server.close(r));
    }
  });

  it('a relative CHATFLOW_DB is the file below the working directory, served as any other', async () => {
    const home = createHome();
    const env = cliEnv({ home, env: { ...SERVICE, CHATFLOW_DB: 'rel.db' } });
    const cli = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, extendEnv: false, env, cwd: home.dir });
    expect((await cli(['variables', 'set', 'REL', '1'])).exitCode).toBe(0);
    const files = serviceFiles(join(home.dir, 'rel.db'), env as NodeJS.ProcessEnv)!;
    await waitFor('the local service', () => existsSync(files.info));
    started.add(infoOf(files).pid);
    expect(infoOf(files).database).toBe(join(home.dir, 'rel.db'));
    expect(existsSync(files.start)).toBe(false);
    const listed = await cli(['variables', 'list', '-o', 'json', '--debug']);
    expect(listed.stderr).toContain(`over ${files.socket}`);
    expect(names(listed.stdout)).toEqual(['REL']);
    await stopped(home, infoOf(files).pid, { CHATFLOW_DB: join(home.dir, 'rel.db') });
  });

  it('service stop --all leaves nothing of gone services: names being taken, start files', async () => {
    const { home, files, pid } = await running();
    const dead = 2 ** 22 + 1; // (above Linux's default pid_max: no process has it)
    const strays = [`${files.socket}.${dead}`, `${files.info}.${dead}`, join(files.dir, `${VERSION}-0000000000000000.start`)];
    for (const stray of strays) writeFileSync(stray, `${dead}: could not start\n`);
    const r = await runCli(['service', 'stop', '--all'], { home, env: SERVICE });
    expect(r.exitCode, r.stderr).toBe(0);
    await waitFor(`service ${pid} to exit`, () => !alive(pid), 10_000);
    expect(readdirSync(files.dir)).toEqual([]);
  });

  it('exits when idle; none starts in CI or with CHATFLOW_NO_SERVICE=1', async () => {
    const { pid } = await running({ CHATFLOW_SERVICE_IDLE: '1' });
    await waitFor(`service ${pid} to idle out`, () => !alive(pid));

    for (const env of [{ CI: 'true' }, { CHATFLOW_NO_SERVICE: '1' }]) {
      const home = createHome();
      for (let i = 0; i < 2; i++) {
        const r = await runCli(['variables', 'list', '-o', 'json', '--debug'], { home, env: { ...SERVICE, ...env } });
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stderr).toContain('embedded service in this process');
      }
      const dir = filesOf(home).dir;
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    }
  });
});
