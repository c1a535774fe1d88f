import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkPermissions,
  configPath,
  getProfile,
  listProfiles,
  loadConfig,
  maskKey,
  setValue,
  unsetValue,
  useProfile,
} from '../../src/cli/base/config.js';
import { resolveConnection } from '../../src/cli/core/connection.js';
import { UsageError } from '../../src/cli/base/errors.js';

const posix = process.platform !== 'win32';
let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chatflow-cfg-'));
  dir = join(root, 'chatflow');
  vi.stubEnv('CHATFLOW_CONFIG_DIR', dir);
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

const KEY = 'sk-0123456789abcdefWXYZ';

describe('maskKey', () => {
  it('shows only the last 4 characters (and a short type prefix), **** when short', () => {
    expect(maskKey(KEY)).toBe('sk-…WXYZ');
    expect(maskKey('0123456789abcdef')).toBe('…cdef');
    expect(maskKey('short-key')).toBe('****');
    expect(maskKey('12345678901')).toBe('****');
  });
});

describe('profiles', () => {
  it('an empty config before any write, and no file is created by reading', async () => {
    expect(await loadConfig()).toEqual({ currentProfile: 'default', profiles: {} });
    const path = await configPath();
    expect(() => statSync(path)).toThrow();
  });

  it('set, list (masked), use, unset', async () => {
    expect(await setValue('default', 'url', 'http://localhost:3000/')).toBe('http://localhost:3000');
    expect(await setValue('default', 'api-key', KEY)).toBe('sk-…WXYZ');
    await setValue('staging', 'url', 'https://staging.example.com/api/');
    await setValue('staging', 'output', 'yaml');
    const list = await listProfiles();
    expect(list).toEqual([
      { name: 'default', current: true, url: 'http://localhost:3000', apiKey: 'sk-…WXYZ' },
      { name: 'staging', current: false, url: 'https://staging.example.com/api', output: 'yaml' },
    ]);
    expect(JSON.stringify(list)).not.toContain(KEY);
    await useProfile('staging');
    expect((await getProfile()).name).toBe('staging');
    expect((await getProfile('default')).apiKey).toBe(KEY);
    expect(await unsetValue('default', 'api-key')).toBe(true);
    expect(await unsetValue('default', 'api-key')).toBe(false);
    expect((await getProfile('default')).apiKey).toBeUndefined();
    await expect(useProfile('nope')).rejects.toThrow(UsageError);
  });

  it('validates url and output', async () => {
    await expect(setValue('default', 'url', 'localhost:3000')).rejects.toThrow(UsageError);
    await expect(setValue('default', 'url', 'ftp://example.com')).rejects.toThrow(/http and https/);
    await expect(setValue('default', 'output', 'xml')).rejects.toThrow(/table, wide, json, ndjson, csv, yaml/);
    await expect(setValue('default', 'colour' as 'url', 'x')).rejects.toThrow(UsageError);
  });
});

describe.runIf(posix)('file permissions', () => {
  it('file 0600 and directory 0700 after a write', async () => {
    await setValue('default', 'api-key', KEY);
    const path = await configPath();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, 'utf8')).toContain(KEY);
  });

  it('tightens an existing loose file and directory on the next write', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ currentProfile: 'default', profiles: {} }), { mode: 0o644 });
    chmodSync(path, 0o644);
    expect(await checkPermissions()).toBe(
      `config file ${path} is readable by other users; run: chmod 600 ${path}`,
    );
    await setValue('default', 'url', 'http://127.0.0.1:3000');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(await checkPermissions()).toBeNull();
  });

  it('no warning when there is no file', async () => {
    expect(await checkPermissions()).toBeNull();
  });
});

describe('resolveConnection', () => {
  beforeEach(async () => {
    await setValue('default', 'url', 'http://profile.example:3000');
    await setValue('default', 'api-key', 'profile-key-123456');
    await setValue('other', 'url', 'http://other.example:3000');
  });

  it('flag > env > profile, for the URL', async () => {
    const env = { CHATFLOW_URL: 'http://env.example:3000/' };
    expect(await resolveConnection({ flagUrl: 'http://flag.example:3000' }, env)).toMatchObject({
      url: 'http://flag.example:3000',
      source: 'flag',
    });
    expect(await resolveConnection({}, env)).toMatchObject({ url: 'http://env.example:3000', source: 'env' });
    expect(await resolveConnection({}, {})).toMatchObject({
      url: 'http://profile.example:3000',
      source: 'profile',
      profile: 'default',
    });
  });

  it('the key follows the same precedence; a profile key never goes to another URL', async () => {
    const c = await resolveConnection({ flagUrl: 'http://flag.example:3000' }, {});
    expect(c).toMatchObject({ url: 'http://flag.example:3000', source: 'flag', apiKeySource: 'embedded' });
    expect(c.apiKey).toBeUndefined();
    const same = await resolveConnection({ flagUrl: 'http://profile.example:3000/' }, {});
    expect(same).toMatchObject({ apiKey: 'profile-key-123456', apiKeySource: 'profile', source: 'flag' });
    const e = await resolveConnection({}, { CHATFLOW_API_KEY: 'env-key' });
    expect(e).toMatchObject({ apiKey: 'env-key', apiKeySource: 'env', source: 'profile' });
    const f = await resolveConnection({ flagApiKey: 'flag-key' }, { CHATFLOW_API_KEY: 'env-key' });
    expect(f).toMatchObject({ apiKey: 'flag-key', apiKeySource: 'flag' });
  });

  it('profile by flag > CHATFLOW_PROFILE > current; an unknown named profile is a usage error', async () => {
    expect(await resolveConnection({}, { CHATFLOW_PROFILE: 'other' })).toMatchObject({
      profile: 'other',
      url: 'http://other.example:3000',
    });
    expect(
      await resolveConnection({ flagProfile: 'default' }, { CHATFLOW_PROFILE: 'other' }),
    ).toMatchObject({ profile: 'default', url: 'http://profile.example:3000' });
    await expect(resolveConnection({ flagProfile: 'typo' }, {})).rejects.toThrow(/unknown profile "typo"/);
  });

  it('embedded when nothing gives a URL', async () => {
    const c = await resolveConnection({ flagProfile: 'other' }, {});
    expect(c.source).toBe('profile');
    await useProfile('other');
    await unsetValue('other', 'url');
    expect(await resolveConnection({}, {})).toEqual({ profile: 'other', source: 'embedded', apiKeySource: 'embedded' });
  });
});
