// Each shell, with the script from completions/, offers what `chatflow __complete` answers:
// commands, subcommands, flags, enum values, and live ids from a running server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/http.js';
import { closedPort, home, NO_SLACK, offer, SHELLS, silentServer, type Env } from './helpers.js';

let server: TestServer;
// zsh starts compinit for every line (about a second of wall time on a loaded machine)
const slow = { timeout: 60_000 };
// zsh's completion functions return 1 when they add nothing (so that another completer may try)
const nothingStatus = (shell: string) => (shell === 'zsh' ? 1 : 0);
let env: Env;
const vars: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  for (const name of ['OPENAI_MODEL', 'REGION']) {
    const reply = await call('POST', `${server.api}/variables`, { name, value: 'x' });
    expect(reply.status).toBe(200);
    vars[name] = reply.body.id as string;
  }
  env = home({ CHATFLOW_URL: server.url }).env;
});

afterAll(async () => {
  await server?.dispose();
});

describe.each(SHELLS)('%s', (shell) => {
  it('completes a command', slow, async () => {
    const r = await offer(shell, 'chatflow va', env);
    expect(r.values).toEqual(['variables']);
    expect(r.stderr).toBe('');
    expect(r.ms).toBeGreaterThan(0);
  });

  it('completes the commands and subcommands, through aliases', slow, async () => {
    const top = await offer(shell, 'chatflow ', env);
    expect(top.values).toEqual(expect.arrayContaining(['variables', 'feedback', 'assistants', 'messages', 'upsert-history', 'config', 'completion']));
    expect(top.values).not.toContain('__complete');
    const sub = await offer(shell, 'chatflow variables ', env);
    expect(sub.values).toEqual(expect.arrayContaining(['list', 'get', 'create', 'update', 'delete', 'set']));
    expect((await offer(shell, 'chatflow vars de', env)).values).toEqual(['delete']);
    expect((await offer(shell, 'chatflow assistants cr', env)).values).toEqual(['create']);
  });

  it('completes flags', slow, async () => {
    expect((await offer(shell, 'chatflow variables list --f', env)).values).toEqual(['--fields']);
    const all = await offer(shell, 'chatflow messages delete --', env);
    expect(all.values).toEqual(expect.arrayContaining(['--session-id', '--hard-delete', '--yes', '--dry-run', '--url', '--help']));
    expect(all.descriptions.get('--hard-delete')).toMatch(/third-party memory/);
  });

  it('completes flag values: --output, --rating, --type, --order, --tool', slow, async () => {
    expect((await offer(shell, 'chatflow variables list --output ', env)).values.sort()).toEqual(['csv', 'json', 'ndjson', 'table', 'wide', 'yaml']);
    expect((await offer(shell, 'chatflow variables list -o nd', env)).values).toEqual(['ndjson']);
    expect((await offer(shell, 'chatflow feedback create --rating ', env)).values.sort()).toEqual(['THUMBS_DOWN', 'THUMBS_UP', 'down', 'up']);
    expect((await offer(shell, 'chatflow messages list x --feedback-type THUMBS_', env)).values.sort()).toEqual(['THUMBS_DOWN', 'THUMBS_UP']);
    expect((await offer(shell, 'chatflow assistants create --type ', env)).values.sort()).toEqual(['AZURE', 'CUSTOM', 'OPENAI']);
    expect((await offer(shell, 'chatflow assistants list --type O', env)).values).toEqual(['OPENAI']);
    expect((await offer(shell, 'chatflow feedback list x --order ', env)).values.sort()).toEqual(['asc', 'desc']);
    expect((await offer(shell, 'chatflow assistants update x --tool code', env)).values).toEqual(['code_interpreter']);
    expect((await offer(shell, 'chatflow completion ', env)).values.sort()).toEqual(['bash', 'fish', 'zsh']);
  });

  it('completes a value given as --flag=value', slow, async () => {
    const r = await offer(shell, 'chatflow variables list --output=ya', env);
    // bash replaces only the text after `=`; zsh and fish replace the whole word
    expect(r.values).toEqual([shell === 'bash' ? 'yaml' : '--output=yaml']);
  });

  it('completes live variable ids from the server, with their names', slow, async () => {
    const r = await offer(shell, 'chatflow variables delete ', env);
    expect(r.values.sort()).toEqual(Object.values(vars).sort());
    expect(r.descriptions.get(vars.OPENAI_MODEL!)).toMatch(/OPENAI_MODEL/);
    expect(r.descriptions.get(vars.REGION!)).toMatch(/REGION/);
    // one more id for a variadic argument: the ones given are not offered again
    const again = await offer(shell, `chatflow variables rm ${vars.REGION} `, env);
    expect(again.values).toEqual([vars.OPENAI_MODEL]);
    // bash inserts what it is handed when one candidate is left: the id alone, no name
    if (shell === 'bash') expect(again.descriptions.size).toBe(0);
  });

  it('takes the server from --url on the line (bash splits the URL at `:`)', slow, async () => {
    const other = home().env; // no CHATFLOW_URL
    const r = await offer(shell, `chatflow variables update --url ${server.url} `, other);
    expect(r.values.sort()).toEqual(Object.values(vars).sort());
  });

  // Timing on a shared machine: retried, so that a burst of load elsewhere does not fail it.
  it('offers nothing, fast and quietly, when the server is not there', { ...slow, retry: 2 }, async () => {
    const closed = home({ CHATFLOW_URL: `http://127.0.0.1:${await closedPort()}`, ...NO_SLACK }).env;
    const r = await offer(shell, 'chatflow variables delete ', closed);
    expect(r.values).toEqual([]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(nothingStatus(shell));
    expect(r.ms).toBeLessThan(2000);
  });

  it('offers nothing within the deadline when the server never answers', { ...slow, retry: 2 }, async () => {
    const silent = await silentServer();
    try {
      const r = await offer(shell, 'chatflow variables delete ', home({ CHATFLOW_URL: silent.url, ...NO_SLACK }).env);
      expect(r.values).toEqual([]);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(nothingStatus(shell));
      expect(r.ms).toBeLessThan(2000);
    } finally {
      await silent.close();
    }
  });
});
