// `chatflow __complete`: the tree walk (in process, on the real command tree), and the command
// itself (the built CLI): live ids, the cache, unreachable servers, what it loads, how long it takes.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complete, type Candidate } from '../../src/cli/completion/complete.js';
import { buildProgram } from '../../src/cli/program.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { candidates, chatflow, closedPort, home, NO_SLACK, REPO, silentServer } from './helpers.js';

const values = (cands: Candidate[]) => cands.map((c) => c.value);

/** Every command path, by name and by each alias: [['variables'], ['vars'], ['variables', 'list'], ...]. */
function paths(cmd: Command, prefix: string[] = []): { path: string[]; cmd: Command }[] {
  return cmd.commands
    .filter((c) => c.name() !== '__complete')
    .flatMap((c) => [c.name(), ...c.aliases()].flatMap((n) => [{ path: [...prefix, n], cmd: c }, ...paths(c, [...prefix, n])]));
}

describe('the tree walk', () => {
  const program = buildProgram();
  const none = { live: async () => [], profiles: async () => [] };

  it('offers every visible subcommand and every visible option of every command, reached by name or alias', async () => {
    const all = paths(program);
    expect(all.length).toBeGreaterThan(30);
    for (const { path, cmd } of all) {
      const help = cmd.createHelp();
      if (cmd.commands.length > 0) {
        expect(values(await complete(program, [...path, ''], none)), path.join(' ')).toEqual(help.visibleCommands(cmd).map((c) => c.name()));
      }
      const longs = help.visibleOptions(cmd).flatMap((o) => (o.long ? [o.long] : []));
      expect(values(await complete(program, [...path, '--'], none)).sort(), path.join(' ')).toEqual([...new Set(longs)].sort());
    }
  });

  it('completes a flag added to the tree, and its choices, with no other change', async () => {
    const p = buildProgram();
    const list = p.commands.find((c) => c.name() === 'variables')!.commands.find((c) => c.name() === 'list')!;
    list.option('--brand-new <x>', 'a new flag').addOption(new Option('--colour <c>', 'a colour').choices(['red', 'blue']));
    expect(await complete(p, ['variables', 'list', '--bra'], none)).toEqual([{ value: '--brand-new', description: 'a new flag' }]);
    expect(values(await complete(p, ['variables', 'ls', '--colour', ''], none))).toEqual(['red', 'blue']);
    expect(values(await complete(p, ['variables', 'ls', '--colour=b'], none))).toEqual(['--colour=blue']);
  });

  it('hides __complete, offers completion, and short flags only for a bare dash', async () => {
    const top = values(await complete(program, [''], none));
    expect(top).toContain('completion');
    expect(top).not.toContain('__complete');
    expect(values(await complete(program, ['variables', 'list', '-'], none))).toEqual(expect.arrayContaining(['-o', '--output', '-q', '-h']));
    expect(values(await complete(program, ['variables', 'list', '--'], none))).not.toContain('-o');
    // given once, not offered again; a repeatable flag is
    expect(values(await complete(program, ['variables', 'list', '--json', '--j'], none))).toEqual([]);
    expect(values(await complete(program, ['assistants', 'create', '--tool', 'function', '--too'], none))).toEqual(['--tool']);
  });

  it('skips option values and understands -ojson, --opt=value, -- and help', async () => {
    expect(values(await complete(program, ['variables', 'list', '-o', 'json', '--page', '2', '--f'], none))).toEqual(['--fields']);
    expect(values(await complete(program, ['variables', 'list', '-oj'], none))).toEqual([]);
    expect(values(await complete(program, ['variables', 'list', '-qo', ''], none))).toEqual(['table', 'wide', 'json', 'ndjson', 'csv', 'yaml']);
    expect(values(await complete(program, ['help', 'var'], none))).toEqual(['variables']);
    expect(values(await complete(program, ['help', 'variables', 'l'], none))).toEqual(['list']);
    expect(values(await complete(program, ['variables', 'create', '--file', ''], none))).toEqual([':files']);
    expect(values(await complete(program, ['config', 'set', ''], none))).toEqual(['url', 'api-key', 'output']);
    expect(values(await complete(program, ['feedback', 'create', '--rating', 'thumbs_d'], none))).toEqual(['THUMBS_DOWN']);
  });

  it('chooses the live ids from the argument name (one table)', async () => {
    const asked: string[] = [];
    const spy = { live: async (kind: string) => (asked.push(kind), [{ value: `${kind}-1` }]), profiles: async () => [{ value: 'prod' }] };
    const kindOf = async (words: string[]) => {
      asked.length = 0;
      await complete(program, words, spy);
      return asked[0];
    };
    // every <chatflowId>/[chatflowId] argument in the tree
    const withChatflowId = paths(program).filter(({ cmd }) => cmd.registeredArguments[0]?.name() === 'chatflowId');
    expect(withChatflowId.length).toBeGreaterThanOrEqual(4);
    for (const { path } of withChatflowId) expect(await kindOf([...path, '']), path.join(' ')).toBe('chatflows');
    expect(await kindOf(['variables', 'delete', ''])).toBe('variables');
    expect(await kindOf(['variables', 'update', ''])).toBe('variables');
    expect(await kindOf(['vars', 'get', ''])).toBe('variables');
    expect(await kindOf(['assistants', 'rm', ''])).toBe('assistants');
    expect(await kindOf(['assistants', 'get', ''])).toBe('assistants');
    expect(await kindOf(['upsert-history', 'delete', 'a', ''])).toBe('upsert-history');
    expect(await kindOf(['messages', 'list', 'cf', '--session-id', ''])).toBeUndefined();
    expect(await kindOf(['variables', 'set', ''])).toBeUndefined();
    expect(await kindOf(['variables', 'update', 'x', ''])).toBeUndefined(); // one id only
    expect(values(await complete(program, ['variables', 'list', '--profile', ''], spy))).toEqual(['prod']);
  });
});

describe('chatflow __complete', () => {
  let server: TestServer;
  let other: TestServer;
  const ids: string[] = [];

  const addVariable = async (s: TestServer, name: string) => {
    const reply = await call('POST', `${s.api}/variables`, { name, value: '1' });
    expect(reply.status).toBe(200);
    return reply.body.id as string;
  };

  beforeAll(async () => {
    [server, other] = await Promise.all([startTestServer(), startTestServer()]);
    ids.push(await addVariable(server, 'ALPHA'), await addVariable(server, 'BETA'));
  });
  afterAll(async () => {
    await Promise.all([server?.dispose(), other?.dispose()]);
  });

  it('prints the script of each shell, and refuses another shell', async () => {
    const env = home().env;
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await chatflow(['completion', shell], env);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(REPO, 'completions', `chatflow.${shell}`), 'utf8').replace(/\n$/, ''));
      expect(r.stdout).toContain('__complete');
    }
    const bad = await chatflow(['completion', 'tcsh'], env);
    expect(bad.exitCode).toBe(2);
    const help = await chatflow(['--help'], env);
    expect(help.stdout).toMatch(/completion/);
    expect(help.stdout).not.toMatch(/__complete/);
  });

  it('__complete takes -h as a word to complete, never as its own help (as the scripts may hand it over)', async () => {
    const r = await chatflow(['__complete', '-h'], home().env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain('Usage:');
    expect(r.stdout).toContain('-h\t');
  });

  it('answers value<TAB>description lines, ids with their names', async () => {
    const { lines, run } = await candidates(['variables', 'delete', ''], home({ CHATFLOW_URL: server.url }).env);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(lines.sort()).toEqual([`${ids[0]}\tALPHA`, `${ids[1]}\tBETA`].sort());
  });

  it('completes names as well as ids: a name prefix + TAB gives the name; a record given is not offered again under either', async () => {
    const env = home({ CHATFLOW_URL: server.url }).env;
    const byName = await candidates(['variables', 'get', 'AL'], env);
    expect(byName.lines).toEqual([`ALPHA\t${ids[0]}`]);
    const lower = await candidates(['variables', 'delete', 'be'], env);
    expect(lower.values).toEqual(['BETA']);
    const rest = await candidates(['variables', 'delete', 'ALPHA', ''], env);
    expect(rest.values).toEqual([ids[1]]);
  });

  it('caches a list for a minute, per server URL and kind, in $XDG_CACHE_HOME/chatflow', async () => {
    const h = home({ CHATFLOW_URL: server.url });
    expect((await candidates(['variables', 'delete', ''], h.env)).values.sort()).toEqual([...ids].sort());
    const dir = join(h.cacheDir, 'chatflow');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);

    const added = await addVariable(server, 'GAMMA');
    try {
      // cached: the new variable is not asked for
      expect((await candidates(['variables', 'delete', ''], h.env)).values).not.toContain(added);
      // another server: its own entry
      const otherId = await addVariable(other, 'OTHER');
      expect((await candidates(['variables', 'delete', '--url', other.url, ''], h.env)).values).toEqual([otherId]);
      // expired: asked again
      const file = join(dir, files[0]!);
      const entry = JSON.parse(readFileSync(file, 'utf8'));
      entry.at -= 61_000;
      writeFileSync(file, JSON.stringify(entry));
      expect((await candidates(['variables', 'delete', ''], h.env)).values).toContain(added);
    } finally {
      await call('DELETE', `${server.api}/variables/${added}`);
    }
  });

  it('forgets the cached lists once a command has changed data: a deleted id is offered no more', async () => {
    const h = home({ CHATFLOW_URL: server.url });
    const added = await addVariable(server, 'DELTA');
    expect((await candidates(['variables', 'delete', ''], h.env)).values).toContain(added);
    // A read keeps the cache: a variable made behind its back is not offered yet.
    const behind = await addVariable(server, 'EPSILON');
    expect((await chatflow(['variables', 'list', '-q'], h.env)).exitCode).toBe(0);
    expect((await candidates(['variables', 'delete', ''], h.env)).values).not.toContain(behind);
    const r = await chatflow(['variables', 'delete', added, behind, '--yes'], h.env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await candidates(['variables', 'delete', ''], h.env)).values.sort()).toEqual([...ids].sort());
  });

  it('follows the profile: a changed config file is not answered from the cache', async () => {
    const h = home();
    expect((await chatflow(['config', 'set', 'url', server.url], h.env)).exitCode).toBe(0);
    expect((await chatflow(['config', 'set', 'url', other.url, '--profile', 'other'], h.env)).exitCode).toBe(0);
    expect((await candidates(['variables', 'delete', ''], h.env)).values.sort()).toEqual([...ids].sort());
    expect((await candidates(['variables', 'delete', '--profile', ''], h.env)).values.sort()).toEqual(['default', 'other']);
    const otherIds = (await candidates(['variables', 'delete', '--profile', 'other', ''], h.env)).values;
    expect(otherIds).toHaveLength(1);
    expect((await chatflow(['config', 'use', 'other'], h.env)).exitCode).toBe(0);
    expect((await candidates(['variables', 'delete', ''], h.env)).values).toEqual(otherIds);
  });

  it('answers nothing, at once and quietly, when the server is down, silent or wrong', { retry: 2 }, async () => {
    const silent = await silentServer();
    try {
      for (const url of [`http://127.0.0.1:${await closedPort()}`, silent.url, 'not a url']) {
        const { run } = await candidates(['variables', 'delete', ''], home({ CHATFLOW_URL: url, ...NO_SLACK }).env);
        expect(run, url).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
        expect(run.ms, url).toBeLessThan(2000);
      }
    } finally {
      await silent.close();
    }
  });

  it('loads no server, database, prompt, table, YAML, HTTP or config module on a cached or static answer', async () => {
    // Every file loaded, by require() (the CLI's CommonJS bundle) or import (its lazy parts).
    const hook = join(tmpdir(), `chatflow-modules-${process.pid}.mjs`);
    writeFileSync(
      hook,
      [
        `import { register, createRequire } from 'node:module';`,
        `const Module = createRequire(import.meta.url)('node:module');`,
        `const resolve = Module._resolveFilename;`,
        `Module._resolveFilename = function (...args) { const r = resolve.apply(this, args); process.stderr.write('MODULE file://' + r + '\\n'); return r; };`,
        `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
          'export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write("MODULE " + r.url + "\\n"); return r; }',
        )}));`,
      ].join('\n'),
    );
    const env = home({ CHATFLOW_URL: server.url }).env;
    await candidates(['variables', 'delete', ''], env); // fills the cache
    // In node_modules, or the bundle's files of their own (the service, undici, yaml, tables, prompts).
    const heavy = /\/node_modules\/(fastify|@fastify|kysely|better-sqlite3|pg|@inquirer|yaml|cli-table3|undici|conf|ajv|@sinclair)\/|\/dist\/bundle\/(server|vendor\/)/;
    for (const words of [['variables', 'delete', ''], ['variables', 'list', '--output', ''], ['va']]) {
      const r = await chatflow(['__complete', '--', ...words], env, ['--import', hook]);
      const modules = r.stderr.split('\n').filter((l) => l.startsWith('MODULE ')).map((l) => l.slice(7));
      // The hook saw the CLI start (its bundle is read as a file, or required: a handful of files, not hundreds).
      expect(modules.filter((m) => m.endsWith('/bin/chatflow.js')), words.join(' ')).not.toEqual([]);
      expect(modules.filter((m) => heavy.test(m)), words.join(' ')).toEqual([]);
      expect(r.stdout).not.toBe('');
    }
  });

  it('fills the cache from the embedded service through a detached refresher', { timeout: 60_000 }, async () => {
    const h = home(NO_SLACK);
    const created = await chatflow(['variables', 'create', '--name', 'EMBEDDED', '-q'], h.env);
    expect(created.exitCode, created.stderr).toBe(0);
    const id = created.stdout.trim();
    let got: string[] = [];
    const until = performance.now() + 20_000;
    while (performance.now() < until) {
      const { values: v, run } = await candidates(['variables', 'delete', ''], h.env);
      expect(run).toMatchObject({ exitCode: 0, stderr: '' });
      expect(run.ms).toBeLessThan(2500);
      got = v;
      if (got.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(got).toEqual([id]);
    // the refresher finishes and removes its lock file
    const locks = () => readdirSync(join(h.cacheDir, 'chatflow')).filter((f) => f.endsWith('.lock'));
    for (let i = 0; i < 50 && locks().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(locks()).toEqual([]);
  });
});
