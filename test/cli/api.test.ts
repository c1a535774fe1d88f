// `chatflow api METHOD PATH`: a raw call with the configured URL and key; the body on stdout and
// the exit code mirroring the HTTP status.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, runCli, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'sk-api-test-0123456789abcdef';
let server: TestServer;
const auth = { authorization: `Bearer ${KEY}` };

const cli = (args: string[], opts: CliOptions = {}) =>
  runCli(args, { url: server.url, ...opts, env: { CHATFLOW_API_KEY: KEY, ...opts.env } });

beforeAll(async () => {
  server = await startTestServer({ apiKeys: [KEY] });
  await call('POST', `${server.api}/chatmessage/flow-api`, [
    { id: 'm1', role: 'userMessage', content: 'one', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1' },
    { id: 'm2', role: 'userMessage', content: 'two', chatType: 'INTERNAL', chatId: 'c2', sessionId: 's2' },
  ], auth);
});
afterAll(async () => {
  await server?.dispose();
});

describe('chatflow api', () => {
  it('GET /variables prints the JSON body, exit 0', async () => {
    const r = await cli(['api', 'GET', '/variables']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('POST --data sends a JSON body; the created record is printed and stored', async () => {
    const r = await cli(['api', 'post', 'variables', '--data', '{"name":"RAW","value":"1"}']);
    expect(r.exitCode, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({ name: 'RAW', value: '1' });
    const stored = await call('GET', `${server.api}/variables`, undefined, auth);
    expect(stored.body.map((v: { id: string }) => v.id)).toEqual([created.id]);
  });

  it('--data @file and --data - (stdin)', async () => {
    const home = createHome();
    const file = join(home.dir, 'body.json');
    writeFileSync(file, '{"name":"FROM_FILE"}');
    const [fromFile, fromStdin] = await Promise.all([
      cli(['api', 'POST', '/variables', '--data', `@${file}`], { home }),
      cli(['api', 'POST', '/variables', '--data', '-'], { input: '{"name":"FROM_STDIN"}' }),
    ]);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout).name).toBe('FROM_FILE');
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout).name).toBe('FROM_STDIN');
  });

  it('--query adds parameters', async () => {
    const r = await cli(['api', 'GET', '/chatmessage/flow-api', '--query', 'sessionId=s2']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((m: { id: string }) => m.id)).toEqual(['m2']);
  });

  it('the exit code mirrors the status: 422 → 2, 404 → 3, 401 → 4; the error body is still printed', async () => {
    const [invalid, missing, unauthorized] = await Promise.all([
      cli(['api', 'POST', '/variables', '--data', '{"value":"no name"}']),
      cli(['api', 'PUT', '/variables/00000000-0000-4000-8000-000000000000', '--data', '{"value":"x"}']),
      cli(['api', 'GET', '/variables'], { env: { CHATFLOW_API_KEY: 'sk-wrong-0000000000' } }),
    ]);
    expect(invalid.exitCode).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ statusCode: 422, success: false });
    expect(missing.exitCode).toBe(3);
    expect(JSON.parse(missing.stdout)).toMatchObject({ statusCode: 404 });
    expect(unauthorized.exitCode).toBe(4);
    expect(JSON.parse(unauthorized.stdout)).toEqual({ statusCode: 401, success: false, message: 'Unauthorized' });
  });

  it('a text answer is printed as text (GET /ping)', async () => {
    const r = await cli(['api', 'GET', '/ping'], { env: { CHATFLOW_API_KEY: undefined } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('pong\n');
  });

  it('a bad method or bad --data JSON is exit 2 and nothing is sent', async () => {
    const [method, data] = await Promise.all([
      cli(['api', 'FETCH', '/variables']),
      cli(['api', 'POST', '/variables', '--data', '{name:']),
    ]);
    expect(method.exitCode).toBe(2);
    expect(method.stderr).toMatch(/invalid method "FETCH"/);
    expect(data.exitCode).toBe(2);
    expect(data.stderr).toMatch(/--data is not valid JSON/);
    const stored = await call('GET', `${server.api}/variables`, undefined, auth);
    expect(stored.body).toHaveLength(3);
  });
});
