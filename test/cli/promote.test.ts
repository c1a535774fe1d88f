// `chatflow variables diff|sync` and `chatflow assistants diff|sync` between two real servers named
// by two profiles: the plan (secrets masked), confirmation, the apply, idempotence, --prune.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHome, runCli, type CliHome, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Assistant, Variable } from '../../src/client/index.js';

const KEY_A = 'key-for-staging-0123456789';
const KEY_B = 'key-for-production-0123456789';
let staging: TestServer;
let prod: TestServer;
let home: CliHome;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { home, ...opts });
/** The servers' URLs change from run to run. */
const ports = (text: string) => text.replaceAll(staging.url, 'http://staging').replaceAll(prod.url, 'http://prod');
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

interface Entry {
  name: string;
  action: string;
  changes?: { field: string; from?: unknown; to?: unknown }[];
  result?: string;
  secret?: boolean;
}

async function variables(s: TestServer, key: string): Promise<Variable[]> {
  return (await call<Variable[]>('GET', `${s.api}/variables`, undefined, auth(key))).body;
}
async function assistants(s: TestServer, key: string): Promise<Assistant[]> {
  return (await call<Assistant[]>('GET', `${s.api}/assistants`, undefined, auth(key))).body;
}
async function clear(s: TestServer, key: string): Promise<void> {
  for (const v of await variables(s, key)) await call('DELETE', `${s.api}/variables/${v.id}`, undefined, auth(key));
  for (const a of await assistants(s, key)) await call('DELETE', `${s.api}/assistants/${a.id}`, undefined, auth(key));
}
async function addVariable(s: TestServer, key: string, name: string, value: string, type = 'static'): Promise<void> {
  expect((await call('POST', `${s.api}/variables`, { name, value, type }, auth(key))).status).toBe(200);
}
async function addAssistant(s: TestServer, key: string, body: Record<string, unknown>): Promise<void> {
  const r = await call('POST', `${s.api}/assistants`, body, auth(key));
  expect(r.status, r.text).toBeLessThan(300);
}

beforeAll(async () => {
  [staging, prod] = await Promise.all([startTestServer({ apiKeys: [KEY_A] }), startTestServer({ apiKeys: [KEY_B] })]);
  home = createHome();
  for (const [profile, s, key] of [['staging', staging, KEY_A], ['prod', prod, KEY_B]] as const) {
    expect((await cli(['config', 'set', 'url', s.url, '--profile', profile])).exitCode).toBe(0);
    expect((await cli(['config', 'set', 'api-key', key, '--profile', profile])).exitCode).toBe(0);
  }
});
afterAll(async () => {
  await Promise.all([staging?.dispose(), prod?.dispose()]);
});

describe('chatflow variables diff|sync', () => {
  beforeEach(async () => {
    await Promise.all([clear(staging, KEY_A), clear(prod, KEY_B)]);
    await addVariable(staging, KEY_A, 'OPENAI_MODEL', 'gpt-4o');
    await addVariable(staging, KEY_A, 'REGION', 'eu-west-1', 'runtime');
    await addVariable(staging, KEY_A, 'SUPPORT_EMAIL', 'help@example.com');
    await addVariable(staging, KEY_A, 'STRIPE_SECRET_KEY', 'sk_live_new_value');
    await addVariable(prod, KEY_B, 'REGION', 'us-east-1');
    await addVariable(prod, KEY_B, 'SUPPORT_EMAIL', 'help@example.com');
    await addVariable(prod, KEY_B, 'STRIPE_SECRET_KEY', 'sk_live_old_value');
    await addVariable(prod, KEY_B, 'LEGACY_FLAG', 'on');
  });

  it('diff shows the plan on a terminal, secret values masked', async () => {
    const r = await cli(['variables', 'diff', '--from', 'staging', '--to', 'prod'], { tty: true, env: { COLUMNS: '80', NO_COLOR: '1' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('sk_live');
    expect(ports(r.stdout)).toMatchInlineSnapshot(`
      "variables: profile staging (http://staging) → profile prod (http://prod)

        + OPENAI_MODEL       create          value "gpt-4o", type "static"
        ~ REGION             update
            value: "us-east-1" → "eu-west-1"
            type: "static" → "runtime"
        ~ STRIPE_SECRET_KEY  update
            value: **** → ****
        ? LEGACY_FLAG        only in target  kept (--prune deletes it)
        = SUPPORT_EMAIL      unchanged

      1 to create, 2 to update, 1 unchanged, 1 only in the target (kept; --prune deletes them)
      "
    `);
  });

  it('diff -o json lists each name with its action and changes, masked', async () => {
    const r = await cli(['variables', 'diff', '--from', 'staging', '--to', 'prod', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('sk_live');
    const plan = JSON.parse(r.stdout) as Entry[];
    expect(plan.map((e) => [e.name, e.action])).toEqual([
      ['OPENAI_MODEL', 'create'],
      ['REGION', 'update'],
      ['STRIPE_SECRET_KEY', 'update'],
      ['LEGACY_FLAG', 'only-in-target'],
      ['SUPPORT_EMAIL', 'unchanged'],
    ]);
    expect(plan.find((e) => e.name === 'REGION')!.changes).toEqual([
      { field: 'value', from: 'us-east-1', to: 'eu-west-1' },
      { field: 'type', from: 'static', to: 'runtime' },
    ]);
    expect(plan.find((e) => e.name === 'STRIPE_SECRET_KEY')).toMatchObject({ secret: true, changes: [{ field: 'value', from: '****', to: '****' }] });
  });

  it('sync refuses without a terminal unless --yes, and --dry-run changes nothing', async () => {
    const before = await variables(prod, KEY_B);
    const refused = await cli(['variables', 'sync', '--from', 'staging', '--to', 'prod']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/Apply 3 changes to profile prod .*refused without confirmation; pass --yes/);
    const dry = await cli(['variables', 'sync', '--from', 'staging', '--to', 'prod', '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/dry run: nothing was changed on profile prod \(http:\/\/\S+\) \(3 changes planned\)/);
    expect(await variables(prod, KEY_B)).toEqual(before);
  });

  it('sync --yes applies the plan, reports each change, and a second run changes nothing', async () => {
    const r = await cli(['variables', 'sync', '--from', 'staging', '--to', 'prod', '--yes', '-o', 'table'], { env: { COLUMNS: '80' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('  ✓ created variable OPENAI_MODEL\n');
    expect(r.stdout).toContain('  ✓ updated variable REGION (value, type)\n');
    expect(r.stdout).toContain('  ✓ updated variable STRIPE_SECRET_KEY (value)\n');
    expect(r.stdout).not.toContain('sk_live');
    expect(r.stderr).toContain('applied 3 changes to profile prod');

    const after = Object.fromEntries((await variables(prod, KEY_B)).map((v) => [v.name, [v.value, v.type]]));
    expect(after).toEqual({
      OPENAI_MODEL: ['gpt-4o', 'static'],
      REGION: ['eu-west-1', 'runtime'],
      SUPPORT_EMAIL: ['help@example.com', 'static'],
      STRIPE_SECRET_KEY: ['sk_live_new_value', 'static'],
      LEGACY_FLAG: ['on', 'static'], // never deleted without --prune
    });

    const snapshot = await variables(prod, KEY_B);
    const again = await cli(['variables', 'sync', '--from', 'staging', '--to', 'prod', '--yes', '-o', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to change');
    expect((JSON.parse(again.stdout) as Entry[]).map((e) => e.action).sort()).toEqual(['only-in-target', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(await variables(prod, KEY_B)).toEqual(snapshot);
  });

  it('sync --prune also deletes what only the target has; json reports results', async () => {
    const r = await cli(['variables', 'sync', '--from', 'staging', '--to', 'prod', '--prune', '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Entry[];
    expect(report.filter((e) => e.result).map((e) => [e.name, e.result])).toEqual([
      ['OPENAI_MODEL', 'created'],
      ['REGION', 'updated'],
      ['STRIPE_SECRET_KEY', 'updated'],
      ['LEGACY_FLAG', 'deleted'],
    ]);
    expect((await variables(prod, KEY_B)).map((v) => v.name).sort()).toEqual(['OPENAI_MODEL', 'REGION', 'STRIPE_SECRET_KEY', 'SUPPORT_EMAIL']);
    const again = await cli(['variables', 'diff', '--from', 'staging', '--to', 'prod', '--prune', '-o', 'json']);
    expect((JSON.parse(again.stdout) as Entry[]).every((e) => e.action === 'unchanged')).toBe(true);
  });

  it('takes a URL for either side, ignores CHATFLOW_URL/CHATFLOW_PROFILE, and refuses one server on both sides', async () => {
    const r = await cli(['variables', 'diff', '--from', staging.url, '--from-api-key', KEY_A, '--to', 'prod', '-o', 'json'], {
      url: staging.url,
      env: { CHATFLOW_PROFILE: 'staging', CHATFLOW_API_KEY: KEY_A },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Entry[]).find((e) => e.name === 'OPENAI_MODEL')!.action).toBe('create');

    const same = await cli(['variables', 'diff', '--from', 'staging', '--to', `${staging.url}/`]);
    expect(same.exitCode).toBe(2);
    expect(same.stderr).toContain('--from and --to are the same server');

    const unknown = await cli(['variables', 'sync', '--from', 'staging', '--to', 'nope', '--yes']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('unknown profile "nope" (--to)');

    const missing = await cli(['variables', 'diff', '--from', 'staging']);
    expect(missing.exitCode).toBe(2);
  });

  it('reports names that several variables share as conflicts and leaves them alone', async () => {
    await addVariable(prod, KEY_B, 'SUPPORT_EMAIL', 'second@example.com');
    const r = await cli(['variables', 'sync', '--from', 'staging', '--to', 'prod', '--yes', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('SUPPORT_EMAIL: 2 in the target have this name');
    const report = JSON.parse(r.stdout) as Entry[];
    expect(report.find((e) => e.name === 'SUPPORT_EMAIL')!.action).toBe('conflict');
    expect((await variables(prod, KEY_B)).filter((v) => v.name === 'SUPPORT_EMAIL')).toHaveLength(2);
    expect((await variables(prod, KEY_B)).find((v) => v.name === 'OPENAI_MODEL')).toBeDefined();
  });
});

describe('chatflow assistants diff|sync', () => {
  beforeEach(async () => {
    await Promise.all([clear(staging, KEY_A), clear(prod, KEY_B)]);
    await addAssistant(staging, KEY_A, {
      details: { name: 'Support triage', model: 'gpt-4o-mini', instructions: 'Be brief.', temperature: 0.2, tools: ['file_search'] },
      credential: 'staging-credential',
      type: 'CUSTOM',
    });
    await addAssistant(staging, KEY_A, { details: { name: 'Data analyst', model: 'gpt-4o', temperature: 0.7, tools: ['code_interpreter'] }, type: 'CUSTOM' });
    await addAssistant(prod, KEY_B, {
      details: { name: 'Data analyst', model: 'gpt-4', temperature: 0.7, tools: ['code_interpreter'], id: 'asst_prod_only' },
      credential: 'prod-credential',
      type: 'CUSTOM',
    });
    await addAssistant(prod, KEY_B, { details: { name: 'Old bot', model: 'gpt-3.5' }, type: 'CUSTOM' });
  });

  it('matches by details.name, shows the plan, applies it, and a second run changes nothing', async () => {
    const diff = await cli(['assistants', 'diff', '--from', 'staging', '--to', 'prod'], { tty: true, env: { COLUMNS: '80', NO_COLOR: '1' } });
    expect(diff.exitCode, diff.stderr).toBe(0);
    expect(ports(diff.stdout)).toMatchInlineSnapshot(`
      "assistants: profile staging (http://staging) → profile prod (http://prod)

        + Support triage  create
            details.model: "gpt-4o-mini"
            details.instructions: "Be brief."
            details.temperature: 0.2
            details.tools: ["file_search"]
            type: "CUSTOM"
            credential: ****
        ~ Data analyst    update
            details.model: "gpt-4" → "gpt-4o"
        ? Old bot         only in target  kept (--prune deletes it)

      1 to create, 1 to update, 0 unchanged, 1 only in the target (kept; --prune deletes them)
      "
    `);

    const sync = await cli(['assistants', 'sync', '--from', 'staging', '--to', 'prod', '-y', '-o', 'table']);
    expect(sync.exitCode, sync.stderr).toBe(0);
    expect(sync.stdout).toContain('✓ created assistant Support triage');
    expect(sync.stdout).toContain('✓ updated assistant Data analyst (details.model)');

    const after = await assistants(prod, KEY_B);
    const byName = Object.fromEntries(after.map((a) => [a.details.name, a]));
    expect(Object.keys(byName).sort()).toEqual(['Data analyst', 'Old bot', 'Support triage']);
    expect(byName['Support triage']).toMatchObject({ details: { model: 'gpt-4o-mini', instructions: 'Be brief.', temperature: 0.2, tools: ['file_search'] }, type: 'CUSTOM' });
    // The provider's id and the credential belong to the target environment: kept.
    expect(byName['Data analyst']).toMatchObject({ details: { model: 'gpt-4o', id: 'asst_prod_only' }, credential: 'prod-credential' });

    const again = await cli(['assistants', 'sync', '--from', 'staging', '--to', 'prod', '-y', '-o', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to change');
    expect(await assistants(prod, KEY_B)).toEqual(after);
  });

  it('--prune deletes assistants only the target has; --credential sets the credential of new ones', async () => {
    const r = await cli(['assistants', 'sync', '--from', 'staging', '--to', 'prod', '--prune', '--credential', 'prod-credential', '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Entry[]).filter((e) => e.result).map((e) => [e.name, e.result])).toEqual([
      ['Support triage', 'created'],
      ['Data analyst', 'updated'],
      ['Old bot', 'deleted'],
    ]);
    const after = await assistants(prod, KEY_B);
    expect(after.map((a) => a.details.name).sort()).toEqual(['Data analyst', 'Support triage']);
    expect(after.find((a) => a.details.name === 'Support triage')!.credential).toBe('prod-credential');
  });
});

describe('promote from a Flowise server', () => {
  let flowise: FlowiseFixture;
  beforeAll(async () => {
    flowise = await startFlowiseFixture();
    await clear(prod, KEY_B);
  });
  afterAll(async () => {
    await flowise?.close();
  });

  it('reads its variables and its string-encoded assistant details', async () => {
    const from = ['--from', flowise.url, '--from-api-key', flowise.apiKey, '--to', 'prod', '--yes', '-o', 'json'];
    const vars = await cli(['variables', 'sync', ...from]);
    expect(vars.exitCode, vars.stderr).toBe(0);
    expect((await variables(prod, KEY_B)).map((v) => [v.name, v.value]).sort()).toEqual([
      ['v_notype', 'abc'],
      ['v_runtime', ''],
      ['v_static', 'hello'],
    ]);
    const asst = await cli(['assistants', 'sync', ...from]);
    expect(asst.exitCode, asst.stderr).toBe(0);
    expect((await assistants(prod, KEY_B)).map((a) => a.details)).toEqual([{ name: 'asst-one', instruction: 'be helpful', chatModel: {}, tools: [] }]);
  });
});
