// `chatflow assistants`: stored definitions, created from flags or a file, details merged on update.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome, csvRecords, parseNdjson, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

interface Assistant {
  id: string;
  details: Record<string, unknown>;
  credential: string | null;
  iconSrc: string | null;
  type: string;
}

let supportId: string;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.dispose();
});

async function serverAssistant(id: string) {
  return call<Assistant>('GET', `${server.api}/assistants/${id}`);
}

describe('chatflow assistants', () => {
  it('create builds details from the flags (json)', async () => {
    const r = await cli([
      'assistants', 'create', '--name', 'Support', '--model', 'gpt-4o', '--instructions', 'be brief',
      '--temperature', '0.2', '--tool', 'file_search', '--tool', 'function', '-o', 'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout) as Assistant;
    expect(a.details).toEqual({ name: 'Support', model: 'gpt-4o', instructions: 'be brief', temperature: 0.2, tools: ['file_search', 'function'] });
    expect(a.type).toBe('CUSTOM');
    supportId = a.id;
    expect((await serverAssistant(a.id)).status).toBe(200);
  });

  it('create --file takes the whole body, flags overriding (ndjson)', async () => {
    const home = createHome();
    const file = join(home.dir, 'assistant.json');
    writeFileSync(file, JSON.stringify({ details: { name: 'FromFile', instructions: 'be nice' }, type: 'OPENAI', credential: 'cred-1' }));
    const r = await cli(['assistants', 'create', '--file', file, '--model', 'gpt-4o-mini', '-o', 'ndjson'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const [a] = parseNdjson(r.stdout) as Assistant[];
    expect(a).toMatchObject({ type: 'OPENAI', credential: 'cred-1', details: { name: 'FromFile', instructions: 'be nice', model: 'gpt-4o-mini' } });
  });

  it('get prints one assistant as yaml, details as a mapping', async () => {
    const r = await cli(['assistants', 'get', supportId, '-o', 'yaml']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseYaml(r.stdout)).toMatchObject({ id: supportId, details: { name: 'Support', temperature: 0.2 } });
  });

  it('update merges the given details into the stored ones', async () => {
    const r = await cli(['assistants', 'update', supportId, '--temperature', '0.7', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).details).toEqual({ name: 'Support', model: 'gpt-4o', instructions: 'be brief', temperature: 0.7, tools: ['file_search', 'function'] });
    expect((await serverAssistant(supportId)).body.details.temperature).toBe(0.7);
  });

  it('list --type filters, and dotted --fields reach into details (csv)', async () => {
    const [custom, openai] = await Promise.all([
      cli(['assistants', 'list', '--type', 'custom', '-o', 'csv', '--fields', 'id,details.name,details.temperature']),
      cli(['assistants', 'list', '--type', 'OPENAI', '-o', 'csv', '--fields', 'details.name']),
    ]);
    expect(custom.exitCode, custom.stderr).toBe(0);
    expect(csvRecords(custom.stdout)).toEqual([{ id: supportId, 'details.name': 'Support', 'details.temperature': '0.7' }]);
    expect(openai.exitCode, openai.stderr).toBe(0);
    expect(csvRecords(openai.stdout)).toEqual([{ 'details.name': 'FromFile' }]);
  });

  it('list on a terminal is a table with the name and model columns', async () => {
    const r = await cli(['assistants', 'list'], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(['id', 'details.name', 'details.model', 'type', 'updatedDate']);
    expect(rows).toContainEqual([supportId, 'Support', 'gpt-4o', 'CUSTOM', expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/)]);
  });

  it('invalid flag values are exit 2 before anything is sent', async () => {
    const [temp, noName] = await Promise.all([
      cli(['assistants', 'create', '--name', 'X', '--temperature', '5', '--tool', 'file_search']),
      cli(['assistants', 'create', '--model', 'gpt-4o', '--no-input']),
    ]);
    expect(temp.exitCode).toBe(2);
    expect(temp.stderr).toMatch(/--temperature "5".*0 to 2/);
    expect(noName.exitCode).toBe(2);
    expect(noName.stderr).toMatch(/missing --name/);
    const all = (await call<Assistant[]>('GET', `${server.api}/assistants`)).body;
    expect(all).toHaveLength(2);
  });

  it('delete refuses without --yes, deletes with it; then get is exit 3', async () => {
    const refused = await cli(['assistants', 'delete', supportId]);
    expect(refused.exitCode).toBe(2);
    expect((await serverAssistant(supportId)).status).toBe(200);

    const done = await cli(['assistants', 'delete', supportId, '--yes']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toContain(`deleted assistant ${supportId}`);

    const gone = await cli(['assistants', 'get', supportId]);
    expect(gone.exitCode).toBe(3);
    expect(gone.stderr).toContain('not found');
  });

  it('credentials list on our service: none kept, exit 0, and a note saying --credential is stored as given', async () => {
    const r = await cli(['credentials', 'list', '-o', 'json']);
    expect([r.exitCode, r.stdout]).toEqual([0, '[]\n']);
    expect(r.stderr).toContain("keeps no credentials: an assistant's --credential is stored as given");
  });
});
