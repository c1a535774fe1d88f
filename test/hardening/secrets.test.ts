// Secrets at rest: the config file holding keys is created 0600 in a 0700 directory whatever the
// umask (and ~/.config, made by the CLI, 0700), by `config set` and by `login`; a looser file is
// tightened on the next write; every command that reads the file warns while it holds a key and
// is readable by others; one another user could change (writable by others, or theirs, up to the
// home) is refused by every command. Exports are 0600. The key is nowhere else on disk. (test/cli/config.test.ts covers the modes
// after `config set`; test/cli-unit/config.test.ts the warning's text.)
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, createHome, runCli, type CliHome } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'sk-secret-at-rest-0123456789abcdef';
const posix = process.platform !== 'win32';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ apiKeys: [KEY] });
});
afterAll(() => server?.dispose());

const configDir = (home: CliHome) => join(home.configDir, 'chatflow');
const configFile = (home: CliHome) => join(configDir(home), 'config.json');
const mode = (path: string) => statSync(path).mode & 0o777;
const WARNING = /warning: config file .*config\.json is readable by other users; run: chmod 600 /;

/** Runs the CLI under umask 000: nothing the process creates is protected by the umask. */
async function runOpen(args: string[], home: CliHome) {
  const r = await execa('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, ...args], {
    reject: false,
    extendEnv: false,
    env: cliEnv({ home }),
    input: '',
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Every file below `dir`. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesBelow(join(dir, e.name)) : [join(dir, e.name)]));
}

describe.runIf(posix)('the config file holding keys', () => {
  it('is created 0600 in a 0700 directory under umask 000, by config set and by login', async () => {
    const viaSet = createHome();
    const set = await runOpen(['config', 'set', 'api-key', KEY], viaSet);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(mode(configFile(viaSet))).toBe(0o600);
    expect(mode(configDir(viaSet))).toBe(0o700);

    const viaLogin = createHome();
    const login = await runOpen(['login', '--url', server.url, '--api-key', KEY], viaLogin);
    expect(login.exitCode, login.stderr).toBe(0);
    expect(mode(configFile(viaLogin))).toBe(0o600);
    expect(mode(configDir(viaLogin))).toBe(0o700);
    expect(login.stderr).not.toMatch(WARNING);
  });

  it('holds the key only there: nothing else under the home (data, cache) has it', async () => {
    const home = createHome();
    expect((await runCli(['login', '--url', server.url, '--api-key', KEY], { home })).exitCode).toBe(0);
    // Commands that use the key, one of which fills the completion cache.
    expect((await runCli(['variables', 'create', '--name', 'AT_REST', '--value', '1'], { home })).exitCode).toBe(0);
    expect((await runCli(['variables', 'list', '--debug'], { home })).exitCode).toBe(0);
    await runCli(['__complete', 'variables', 'delete', ''], { home });
    const holding = filesBelow(home.dir).filter((f) => readFileSync(f).includes(KEY));
    expect(holding).toEqual([configFile(home)]);
  });

  describe('readable by others', () => {
    let home: CliHome;
    const loosen = () => {
      chmodSync(configDir(home), 0o755);
      chmodSync(configFile(home), 0o644);
    };
    beforeAll(async () => {
      home = createHome();
      mkdirSync(configDir(home), { mode: 0o755 });
      writeFileSync(configFile(home), JSON.stringify({ currentProfile: 'default', profiles: { default: { url: server.url, apiKey: KEY } } }));
    });

    it('every command that reads the key from the profile warns once, and still works', async () => {
      loosen();
      for (const args of [
        ['variables', 'list'],
        ['variables', 'create', '--name', 'LOOSE'],
        ['messages', 'list', 'some-flow'],
        ['api', 'GET', '/variables'],
        ['variables', 'diff', '--from', 'default', '--to', 'default'],
        ['config', 'list'],
      ]) {
        const r = await runCli(args, { home });
        expect(r.stderr.match(new RegExp(WARNING.source, 'g')), `${args.join(' ')}: ${r.stderr}`).toHaveLength(1);
        expect(r.stderr).toContain(`chmod 600 ${configFile(home)}`);
        expect(r.stdout + r.stderr).not.toContain(KEY);
      }
    });

    it('a command that reads the file but not its key warns too; none once it is 0600, nor for a file holding no key', async () => {
      loosen();
      const other = await runCli(['variables', 'list', '--api-key', KEY], { home });
      expect(other.exitCode, other.stderr).toBe(0);
      expect(other.stderr.match(new RegExp(WARNING.source, 'g')), other.stderr).toHaveLength(1);
      const keyless = createHome();
      mkdirSync(configDir(keyless), { mode: 0o755 });
      writeFileSync(configFile(keyless), JSON.stringify({ currentProfile: 'default', profiles: { default: { url: server.url } } }), { mode: 0o644 });
      const noKey = await runCli(['variables', 'list', '--api-key', KEY], { home: keyless });
      expect(noKey.exitCode, noKey.stderr).toBe(0);
      expect(noKey.stderr).not.toMatch(WARNING);
      chmodSync(configFile(home), 0o600);
      const tight = await runCli(['variables', 'list'], { home });
      expect(tight.exitCode, tight.stderr).toBe(0);
      expect(tight.stderr).not.toMatch(WARNING);
    });

    it('login warns about the loose file it found, then leaves it 0600 in a 0700 directory', async () => {
      loosen();
      const r = await runCli(['login', '--url', server.url, '--api-key', KEY], { home });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(WARNING);
      expect(mode(configFile(home))).toBe(0o600);
      expect(mode(configDir(home))).toBe(0o700);
      const again = await runCli(['config', 'list'], { home });
      expect(again.stderr).not.toMatch(WARNING);
    });

    it('config set tightens a loose file and directory', async () => {
      loosen();
      const r = await runCli(['config', 'set', 'output', 'json'], { home });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mode(configFile(home))).toBe(0o600);
      expect(mode(configDir(home))).toBe(0o700);
    });
  });
});

describe.runIf(posix)('a config another user can change is refused', () => {
  /** A home whose config names the server and its key. */
  function configured(): CliHome {
    const home = createHome();
    mkdirSync(configDir(home), { mode: 0o700 });
    writeFileSync(configFile(home), JSON.stringify({ currentProfile: 'default', profiles: { default: { url: server.url, apiKey: KEY } } }), { mode: 0o600 });
    return home;
  }
  /** One line naming `path`. */
  const expectRefusal = (stderr: string, path: string) => {
    expect(stderr).toMatch(/^chatflow: refusing to use the config: [^\n]*\n$/);
    expect(stderr).toContain(` ${path} `);
  };

  it('writable by others (the file, its directory, a directory above it): one line with the chmod to run, exit 2, for every command', async () => {
    const home = configured();
    expect((await runCli(['variables', 'list'], { home })).exitCode).toBe(0);
    for (const [path, loose] of [
      [configFile(home), 0o622],
      [configDir(home), 0o777],
      [home.configDir, 0o775],
    ] as const) {
      const before = statSync(path).mode & 0o7777;
      chmodSync(path, loose);
      for (const args of [['variables', 'list'], ['config', 'list'], ['config', 'set', 'output', 'json'], ['messages', 'list', 'some-flow']]) {
        const r = await runCli(args, { home });
        expect(r.exitCode, `${args.join(' ')} with ${path} ${loose.toString(8)}: ${r.stderr}`).toBe(2);
        expectRefusal(r.stderr, path);
        expect(r.stderr).toContain(`chmod go-w ${path}`);
        expect(r.stdout).toBe('');
      }
      chmodSync(path, before);
    }
    expect((await runCli(['variables', 'list'], { home })).exitCode).toBe(0);
    // No file yet: config set would make it where others could replace it.
    const empty = createHome();
    chmodSync(empty.configDir, 0o777);
    const set = await runCli(['config', 'set', 'url', server.url], { home: empty });
    expect(set.exitCode, set.stderr).toBe(2);
    expectRefusal(set.stderr, empty.configDir);
    expect(existsSync(configFile(empty))).toBe(false);
  });

  it("another user's config directory or file (uid 65534): refused, exit 2", async () => {
    for (const which of [configDir, configFile]) {
      const home = configured();
      chownSync(which(home), 65534, 65534);
      const r = await runCli(['variables', 'list'], { home });
      expect(r.exitCode, r.stderr).toBe(2);
      expectRefusal(r.stderr, which(home));
      expect(r.stderr).toContain('another user (uid 65534)');
    }
  });

  it('under umask 000, config set makes ~/.config 0700 (not 0777), the directory 0700 and the file 0600', async () => {
    const home = createHome();
    // No XDG_CONFIG_HOME: the CLI makes ~/.config itself.
    const r = await execa('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, 'config', 'set', 'url', server.url], {
      reject: false,
      extendEnv: false,
      env: cliEnv({ home, env: { XDG_CONFIG_HOME: undefined } }),
      input: '',
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const dotConfig = join(home.dir, '.config');
    expect(mode(dotConfig)).toBe(0o700);
    expect(mode(join(dotConfig, 'chatflow'))).toBe(0o700);
    expect(mode(join(dotConfig, 'chatflow', 'config.json'))).toBe(0o600);
  });
});

describe.runIf(posix)('export --out', () => {
  it('is 0600 under umask 000, a new file and one that was there (replaced by a new one, 0600)', async () => {
    const home = createHome();
    expect((await runCli(['variables', 'create', '--name', 'EXPORTED', '--value', 'private', '--url', server.url, '--api-key', KEY], { home })).exitCode).toBe(0);
    const fresh = join(home.dir, 'new.jsonl');
    const existing = join(home.dir, 'existing.jsonl');
    writeFileSync(existing, 'old\n', { mode: 0o644 });
    chmodSync(existing, 0o644);
    for (const file of [fresh, existing]) {
      const r = await runOpen(['export', '--out', file, '--url', server.url, '--api-key', KEY], home);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('EXPORTED');
      expect(mode(file)).toBe(0o600);
    }
  });
});
