// `chatflow serve` as a real child process: it says where it listens, serves the other commands,
// stops cleanly on SIGTERM, and refuses bad starts with one line.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STACK_LINE, createHome, runCli, spawnCli, waitForLine } from '../helpers/cli.js';

const started: ReturnType<typeof spawnCli>[] = [];
let blocker: Server | undefined;

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await Promise.all(started.map((p) => p.catch(() => undefined)));
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
});

describe('chatflow serve', () => {
  it('prints its URL, serves requests (logged with --log), and exits 0 on SIGTERM', async () => {
    const home = createHome();
    const db = join(home.dir, 'served.db');
    const proc = spawnCli(['serve', '--port', '0', '--db', db, '--log'], { home });
    started.push(proc);
    const [, url] = await waitForLine(proc.stdout!, /listening on (http:\/\/127\.0\.0\.1:\d+) \(database: (.+)\)/);
    expect(url).toBeDefined();

    const created = await runCli(['variables', 'create', '--name', 'SERVED', '--value', '1', '-o', 'json'], { url });
    expect(created.exitCode, created.stderr).toBe(0);
    const listed = await runCli(['variables', 'list', '-q'], { url });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(`${JSON.parse(created.stdout).id}\n`);
    expect(existsSync(db)).toBe(true);

    proc.kill('SIGTERM');
    const result = await proc;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout)).toContain(`listening on ${url} (database: ${db})`);
    expect(String(result.stderr)).toMatch(/POST \/api\/v1\/variables 20\d/);
    expect(String(result.stderr)).toMatch(/SIGTERM/);
    expect(String(result.stderr)).not.toMatch(STACK_LINE);
  });

  it('--host 0.0.0.0 without a key: exit 2, one line, no database touched', async () => {
    const home = createHome();
    const db = join(home.dir, 'open.db');
    const r = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', db], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^chatflow: refusing to listen on 0\.0\.0\.0 without an API key/);
    expect(existsSync(db)).toBe(false);
  });

  it('a port in use: non-zero, one line naming the port, no stack trace', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const home = createHome();
    const r = await runCli(['serve', '--port', String(port), '--db', join(home.dir, 'busy.db')], { home });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^chatflow: port ${port} .*already in use`));
    expect(r.stdout).toBe('');
  });

  it('a --db that is not a database: one line, naming the flag and the variable that choose another', async () => {
    const home = createHome();
    const db = join(home.dir, 'notes.db');
    writeFileSync(db, 'not a database, some notes '.repeat(20));
    const r = await runCli(['serve', '--port', '0', '--db', db], { home });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`chatflow: cannot open the database ${db}: the file is not a chatflow database (choose another with --db or CHATFLOW_DB)\n`);
  });

  it('an invalid --port is exit 2', async () => {
    const r = await runCli(['serve', '--port', '70000']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid --port "70000"/);
  });
});
