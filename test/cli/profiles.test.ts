// Profiles in daily use: back to the embedded service, deleting a profile, logging out, and API
// keys that never have to be typed on a command line (where `ps` shows them to every local user).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, runCli, spawnCli, waitForLine, type CliHome } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'profiles-test-key-0123456789';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ apiKeys: [KEY] });
});
afterAll(async () => {
  await server?.dispose();
});

async function loggedIn(home: CliHome, profile = 'prod'): Promise<void> {
  expect((await runCli(['config', 'set', 'url', server.url, '--profile', profile], { home })).exitCode).toBe(0);
  expect((await runCli(['config', 'set', 'api-key', KEY, '--profile', profile], { home })).exitCode).toBe(0);
  expect((await runCli(['config', 'use', profile], { home })).exitCode).toBe(0);
}

/** Where `vars set` lands: the server (it answers the key) or the embedded database. */
async function whereVariablesGo(home: CliHome): Promise<string> {
  const r = await runCli(['vars', 'set', 'WHERE', 'x', '--debug', '-o', 'json'], { home });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stderr.includes('debug: embedded service') ? 'embedded' : 'server';
}

describe('profiles', () => {
  it('config use default returns to the embedded service', async () => {
    const home = createHome();
    await loggedIn(home);
    expect(await whereVariablesGo(home)).toBe('server');
    const r = await runCli(['config', 'use', 'default'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('now using profile default (the embedded service)');
    expect(await whereVariablesGo(home)).toBe('embedded');
  });

  it('config delete (rm) removes a profile; the current one gone, default is current; an unknown one is exit 3', async () => {
    const home = createHome();
    await loggedIn(home, 'staging');
    const r = await runCli(['config', 'rm', 'staging'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('deleted profile staging; now using profile default (the embedded service)');
    const list = await runCli(['config', 'list', '-o', 'json'], { home });
    expect(JSON.parse(list.stdout)).toEqual([]);
    const again = await runCli(['config', 'delete', 'staging'], { home });
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toContain('no profile "staging"');
  });

  it('logout forgets the URL and key login saved; commands go to the embedded service again', async () => {
    const home = createHome();
    await loggedIn(home);
    const r = await runCli(['logout'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`logged out of ${server.url} (profile prod)`);
    expect((await runCli(['config', 'get', 'api-key', '--profile', 'prod'], { home })).exitCode).toBe(3);
    expect(await whereVariablesGo(home)).toBe('embedded');
    expect((await runCli(['logout'], { home })).exitCode).toBe(3);
  });
});

describe('never the wrong server', () => {
  it('login --profile P makes P current: the next command goes to its server', async () => {
    const home = createHome();
    const login = await runCli(['login', '--url', server.url, '--api-key', KEY, '--profile', 'flowise'], { home });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).toContain('as profile flowise (key ');
    expect(login.stderr).toContain('now using profile flowise');
    const list = await runCli(['config', 'list', '-o', 'json'], { home });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'flowise', current: true })]);
    expect(await whereVariablesGo(home)).toBe('server');
  });

  it('a confirmation and a --dry-run name the server and profile, or the local database', async () => {
    const home = createHome();
    await loggedIn(home);
    expect((await runCli(['vars', 'set', 'TARGETED', 'x'], { home })).exitCode).toBe(0);
    const refused = await runCli(['vars', 'delete', 'TARGETED'], { home });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(`chatflow: Delete 1 variable (TARGETED) on ${server.url} (profile prod): refused without confirmation; pass --yes (-y) to go ahead\n`);
    const dry = await runCli(['vars', 'delete', 'TARGETED', '--dry-run', '-o', 'json'], { home });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toBe(`dry run on ${server.url} (profile prod): nothing was sent\n`);

    const local = createHome();
    expect((await runCli(['vars', 'set', 'TARGETED', 'x'], { home: local })).exitCode).toBe(0);
    const refusedLocally = await runCli(['vars', 'delete', 'TARGETED'], { home: local });
    expect(refusedLocally.stderr).toContain('Delete 1 variable (TARGETED) on the local database ~/data/chatflow/chatflow.db: refused');
    const messages = await runCli(['messages', 'delete', 'flow-x', '--dry-run'], { home: local });
    expect(messages.stderr).toContain('dry run on the local database ~/data/chatflow/chatflow.db: nothing was sent');
  });

  it('at a terminal the question names the server and profile; no keeps the variable', async () => {
    const home = createHome();
    await loggedIn(home);
    expect((await runCli(['vars', 'set', 'ASKED', 'x'], { home })).exitCode).toBe(0);
    const r = await runInPty(['vars', 'delete', 'ASKED'], { home, columns: 80, keys: [{ when: /\?/, text: 'n\r', delayMs: 100 }] });
    expect(r.screen).toContain(`Delete 1 variable (ASKED) on ${server.url} (profile prod)?`);
    expect(r.exitCode).toBe(2);
    expect(await whereVariablesGo(home)).toBe('server');
    const still = await runCli(['vars', 'get', 'ASKED', '-o', 'json'], { home });
    expect(still.exitCode, still.stderr).toBe(0);
  });

  it('login --profile P under another CHATFLOW_PROFILE says plainly that the shell still chooses that one', async () => {
    const home = createHome();
    await loggedIn(home, 'staging');
    const r = await runCli(['login', '--url', server.url, '--api-key', KEY, '--profile', 'prod'], { home, env: { CHATFLOW_PROFILE: 'staging' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('now using profile prod; CHATFLOW_PROFILE=staging still chooses profile staging in this shell (unset it)');
  });
});

describe('keys off the command line', () => {
  it('--api-key-file reads the key from a file; login takes it too; config get api-key --show prints it', async () => {
    const home = createHome();
    const file = join(home.dir, 'key');
    writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
    const list = await runCli(['vars', 'ls', '--url', server.url, '--api-key-file', file, '-o', 'json'], { home });
    expect(list.exitCode, list.stderr).toBe(0);
    const login = await runCli(['login', '--url', server.url, '--api-key-file', file], { home });
    expect(login.exitCode, login.stderr).toBe(0);
    const masked = await runCli(['config', 'get', 'api-key'], { home });
    expect(masked.stdout.trim()).not.toContain(KEY);
    const shown = await runCli(['config', 'get', 'api-key', '--show'], { home });
    expect([shown.exitCode, shown.stdout]).toEqual([0, `${KEY}\n`]);
    const missing = await runCli(['vars', 'ls', '--url', server.url, '--api-key-file', join(home.dir, 'nope')], { home });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/^chatflow: cannot read --api-key-file .*nope: no such file\n$/);
  });

  it('serve --api-key-file: a new file gets a generated key, shown once to the operator; clients use the same file', async () => {
    const home = createHome();
    const file = join(home.dir, 'server-keys');
    const serve = async () => {
      const proc = spawnCli(['serve', '--port', '0', '--db', join(home.dir, 'k.db'), '--api-key-file', file], { home });
      const [, url] = await waitForLine(proc.stdout!, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      return { proc, url: url! };
    };
    const first = await serve();
    const key = readFileSync(file, 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await runCli(['vars', 'ls', '--url', first.url], { home })).exitCode).toBe(4);
    expect((await runCli(['vars', 'ls', '--url', first.url, '--api-key-file', file], { home })).exitCode).toBe(0);
    first.proc.kill('SIGTERM');
    const shown = String((await first.proc).stderr);
    expect(shown).toContain(`generated an API key and saved it in ${file}`);
    expect(shown).toContain(key);
    // The second start reads the same key and shows nothing.
    const second = await serve();
    expect((await runCli(['vars', 'ls', '--url', second.url, '--api-key-file', file], { home })).exitCode).toBe(0);
    second.proc.kill('SIGTERM');
    const again = String((await second.proc).stderr);
    expect(again).not.toContain(key);
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
  });
});
