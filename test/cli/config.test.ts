// Profiles: config set/get/list with the key masked, the file's mode, `config use`, `login`, and
// where the URL and key come from: flag > env > profile > embedded.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, csvRecords, runCli, type CliHome, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY_A = 'sk-test-a-0123456789abcdef';
let serverA: TestServer; // requires KEY_A, holds ON_A
let serverB: TestServer; // open, holds ON_B
let home: CliHome;

/** Every invocation here shares one home (one config file); no CHATFLOW_URL unless given. */
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { home, ...opts });

/** Names of the variables the CLI sees: which server it talked to. */
async function seenNames(opts: CliOptions = {}, extra: string[] = []): Promise<string[]> {
  const r = await cli(['variables', 'list', '-o', 'csv', '--fields', 'name', ...extra], opts);
  expect(r.exitCode, r.stderr).toBe(0);
  return csvRecords(r.stdout).map((v) => v.name!);
}

beforeAll(async () => {
  [serverA, serverB] = await Promise.all([startTestServer({ apiKeys: [KEY_A] }), startTestServer()]);
  await call('POST', `${serverA.api}/variables`, { name: 'ON_A' }, { authorization: `Bearer ${KEY_A}` });
  await call('POST', `${serverB.api}/variables`, { name: 'ON_B' });
  home = createHome();
});
afterAll(async () => {
  await Promise.all([serverA?.dispose(), serverB?.dispose()]);
});

describe('chatflow config', () => {
  it('keeps the file in XDG_CONFIG_HOME, else in ~/.config (HOME), and a later command finds its profile there', async () => {
    const own = createHome();
    const noXdg = { home: own, env: { XDG_CONFIG_HOME: undefined } };
    const set = await runCli(['config', 'set', 'url', serverB.url], noXdg);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(existsSync(join(own.dir, '.config', 'chatflow', 'config.json'))).toBe(true);
    expect(existsSync(join(own.configDir, 'chatflow', 'config.json'))).toBe(false);
    expect(await seenNames(noXdg)).toEqual(['ON_B']);
    // With XDG_CONFIG_HOME, that file is not the one read: no profile, the embedded service (no ON_B).
    expect(await seenNames({ home: own })).not.toContain('ON_B');
    const xdg = await runCli(['config', 'set', 'url', serverB.url], { home: own });
    expect(xdg.exitCode, xdg.stderr).toBe(0);
    expect(existsSync(join(own.configDir, 'chatflow', 'config.json'))).toBe(true);
  });

  it('set stores url and api-key; the key is only ever shown masked; the file is 0600', async () => {
    const url = await cli(['config', 'set', 'url', `${serverA.url}/`]);
    expect(url.exitCode, url.stderr).toBe(0);
    expect(url.stderr).toContain(`default: url = ${serverA.url}`);

    const key = await cli(['config', 'set', 'api-key', KEY_A]);
    expect(key.exitCode, key.stderr).toBe(0);
    expect(key.stderr).toContain('default: api-key = sk-…cdef');
    expect(key.stdout + key.stderr).not.toContain(KEY_A);

    const path = join(home.configDir, 'chatflow', 'config.json');
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.configDir, 'chatflow')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ profiles: { default: { url: serverA.url, apiKey: KEY_A } } });
  });

  it('get prints the key masked; an unset key is exit 3', async () => {
    const [key, output] = await Promise.all([cli(['config', 'get', 'api-key']), cli(['config', 'get', 'output'])]);
    expect(key.exitCode).toBe(0);
    expect(key.stdout).toBe('sk-…cdef\n');
    expect(output.exitCode).toBe(3);
    expect(output.stderr).toMatch(/output is not set in profile default/);
  });

  it('list shows every profile with the key masked (json)', async () => {
    const r = await cli(['config', 'list', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ name: 'default', current: true, url: serverA.url, apiKey: 'sk-…cdef' }]);
    expect(r.stdout).not.toContain(KEY_A);
  });

  it('an invalid URL is exit 2 and changes nothing', async () => {
    const badUrl = await cli(['config', 'set', 'url', 'ftp://example.com']);
    expect(badUrl.exitCode).toBe(2);
    expect(badUrl.stderr).toMatch(/only http and https/);
  });
});

describe('where the server and key come from', () => {
  it('the profile: its URL and its key', async () => {
    expect(await seenNames()).toEqual(['ON_A']);
  });

  it('CHATFLOW_URL beats the profile', async () => {
    expect(await seenNames({ env: { CHATFLOW_URL: serverB.url } })).toEqual(['ON_B']);
  });

  it('--url beats CHATFLOW_URL', async () => {
    expect(await seenNames({ env: { CHATFLOW_URL: serverB.url } }, ['--url', serverA.url])).toEqual(['ON_A']);
  });

  it('CHATFLOW_API_KEY beats the profile key; --api-key beats CHATFLOW_API_KEY', async () => {
    const env = { CHATFLOW_API_KEY: 'sk-wrong-key-000000' };
    const wrong = await cli(['variables', 'list'], { env });
    expect(wrong.exitCode).toBe(4);
    expect(wrong.stderr).toMatch(/refused the API key/);
    expect(await seenNames({ env }, ['--api-key', KEY_A])).toEqual(['ON_A']);
  });

  it('a named profile: --profile beats CHATFLOW_PROFILE, which beats the current one', async () => {
    const set = await cli(['config', 'set', 'url', serverB.url, '--profile', 'other']);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(await seenNames({ env: { CHATFLOW_PROFILE: 'other' } })).toEqual(['ON_B']);
    expect(await seenNames({ env: { CHATFLOW_PROFILE: 'other' } }, ['--profile', 'default'])).toEqual(['ON_A']);
  });

  it('an unknown profile is exit 2, naming the known ones', async () => {
    const r = await cli(['variables', 'list', '--profile', 'nope']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown profile "nope".*known: default, other/);
  });

  it('config use switches the current profile; an unknown one is exit 2', async () => {
    const use = await cli(['config', 'use', 'other']);
    expect(use.exitCode, use.stderr).toBe(0);
    expect(await seenNames()).toEqual(['ON_B']);
    const nope = await cli(['config', 'use', 'nope']);
    expect(nope.exitCode).toBe(2);
    expect(nope.stderr).toMatch(/no profile "nope"/);
  });

  it("a profile's output format is the default; -o still wins", async () => {
    const set = await cli(['config', 'set', 'output', 'yaml']);
    expect(set.exitCode, set.stderr).toBe(0);
    // (every other list in this file gives -o or -q, and they still work: -o wins)
    const dflt = await cli(['variables', 'list']);
    expect(parseYaml(dflt.stdout)).toEqual([expect.objectContaining({ name: 'ON_B' })]);
  });

  it('with no URL anywhere, the embedded service on the local database', async () => {
    const unset = await cli(['config', 'unset', 'url']);
    expect(unset.exitCode, unset.stderr).toBe(0);
    const r = await cli(['variables', 'list', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(existsSync(join(home.dataDir, 'chatflow', 'chatflow.db'))).toBe(true);
  });
});

describe('chatflow login', () => {
  it('checks the key against the server before saving it', async () => {
    const other = createHome();
    const bad = await runCli(['login', '--url', serverA.url, '--api-key', 'sk-wrong-key-000000', '--profile', 'prod'], { home: other });
    expect(bad.exitCode).toBe(4);
    expect(existsSync(join(other.configDir, 'chatflow', 'config.json'))).toBe(false);

    const good = await runCli(['login', '--url', serverA.url, '--api-key', KEY_A, '--profile', 'prod'], { home: other });
    expect(good.exitCode, good.stderr).toBe(0);
    expect(good.stderr).toContain('sk-…cdef');
    expect(good.stderr).not.toContain(KEY_A);
    const saved = JSON.parse(readFileSync(join(other.configDir, 'chatflow', 'config.json'), 'utf8'));
    expect(saved.profiles.prod).toEqual({ url: serverA.url, apiKey: KEY_A });
  });

});
