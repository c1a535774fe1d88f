// Output: the five formats read back to the same records, --fields, -q, the table only on a
// terminal (CHATFLOW_FORCE_TTY=1 stands for one), and no ANSI codes with NO_COLOR or --no-color.
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI, BIN, cliEnv, csvRecords, parseNdjson, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import type { Variable } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

// Values that break naive output: a comma, quotes, a line break, a terminal escape, non-ASCII.
const VALUES = [
  { name: 'PLAIN', value: 'gpt-4o', type: 'static' },
  { name: 'TRICKY', value: 'a, "b"\nc', type: 'runtime' },
  { name: 'UNICODE', value: 'café ✓ 日本', type: 'static' },
  { name: 'ESCAPE', value: 'red\u001b[31mtext', type: 'static' },
];
let expected: Variable[];

beforeAll(async () => {
  server = await startTestServer();
  for (const v of VALUES) {
    const res = await call('POST', `${server.api}/variables`, v);
    expect(res.status, res.text).toBeLessThan(300);
  }
  expected = (await call<Variable[]>('GET', `${server.api}/variables`)).body;
  expect(expected).toHaveLength(VALUES.length);
});
afterAll(async () => {
  await server?.dispose();
});

describe('the five formats give back the same records', () => {
  it('json: one array, the default when stdout is not a terminal', async () => {
    const r = await cli(['variables', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });

  it('ndjson: one object a line', async () => {
    const r = await cli(['variables', 'list', '-o', 'ndjson']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(expected.length);
    expect(parseNdjson(r.stdout)).toEqual(expected);
  });

  it('csv: a header row, then RFC 4180 rows', async () => {
    const r = await cli(['variables', 'list', '-o', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\r\n')[0]).toBe('id,name,value,type,createdDate,updatedDate');
    expect(csvRecords(r.stdout)).toEqual(expected);
  });

  it('yaml: a sequence', async () => {
    const r = await cli(['variables', 'list', '-o', 'yaml']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseYaml(r.stdout)).toEqual(expected);
  });

  it('--json with another -o is exit 2', async () => {
    const conflict = await cli(['variables', 'list', '--json', '-o', 'csv']);
    expect(conflict.exitCode).toBe(2);
    expect(conflict.stderr).toMatch(/--json conflicts with -o csv/);
  });

  it('one record: a yaml mapping (not a sequence), a csv header and one row', async () => {
    const one = expected.find((v) => v.name === 'TRICKY')!;
    const get = (format: string) => cli(['variables', 'get', one.id, '-o', format]);
    const [yaml, csv] = await Promise.all([get('yaml'), get('csv')]);
    for (const r of [yaml, csv]) expect(r.exitCode, r.stderr).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(one);
    expect(csvRecords(csv.stdout)).toEqual([one]);
  });

  it('an empty list: [] in yaml, nothing in csv, a note on stderr', async () => {
    const flow = 'no-such-chatflow';
    const list = (format: string) => cli(['feedback', 'list', flow, '-o', format]);
    const [yaml, csv] = await Promise.all([list('yaml'), list('csv')]);
    expect(parseYaml(yaml.stdout)).toEqual([]);
    expect(csv.stdout).toBe('');
    for (const r of [yaml, csv]) {
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain('No feedback found.');
    }
  });
});

describe('fields and ids', () => {
  it('--fields picks keys in the order given', async () => {
    const json = await cli(['variables', 'list', '-o', 'json', '--fields', 'value, name']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expected.map((v) => ({ value: v.value, name: v.name })));
    expect(Object.keys(JSON.parse(json.stdout)[0])).toEqual(['value', 'name']);
  });

  it('an unknown field is exit 2 and lists the available ones', async () => {
    const r = await cli(['variables', 'list', '--fields', 'name,colour']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown field colour; available: id, name, value, type, createdDate, updatedDate/);
    expect(r.stdout).toBe('');
  });

  it('-q prints the ids one a line, whatever the format', async () => {
    const r = await cli(['variables', 'list', '-q', '-o', 'yaml']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected.map((v) => `${v.id}\n`).join(''));
  });
});

describe('table and colour', () => {
  it('on a terminal: a table of the default columns, coloured, data kept on one line and unescaped', async () => {
    const r = await cli(['variables', 'list'], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(ANSI);
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(['id', 'name', 'value', 'type', 'updatedDate']);
    expect(rows.map((row) => row[1])).toEqual(expected.map((v) => v.name));
    const byName = Object.fromEntries(rows.map((row) => [row[1], row]));
    expect(byName.TRICKY![2]).toBe('a, "b" c');
    expect(byName.UNICODE![2]).toBe('café ✓ 日本');
    // The escape character in the data is not passed to the terminal.
    expect(byName.ESCAPE![2]).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u001b[31m');
  });

  it('NO_COLOR or --no-color: the same table without ANSI codes, errors too', async () => {
    const [noColorEnv, noColorFlag] = await Promise.all([
      cli(['variables', 'list'], { tty: true, env: { NO_COLOR: '1' } }),
      cli(['variables', 'get', 'NOPE', '--no-color'], { tty: true }),
    ]);
    expect(noColorEnv.exitCode, noColorEnv.stderr).toBe(0);
    expect(noColorEnv.stdout).not.toMatch(ANSI);
    expect(tableRows(noColorEnv.stdout)[0]).toEqual(['id', 'name', 'value', 'type', 'updatedDate']);
    expect(noColorFlag.exitCode).toBe(3);
    expect(noColorFlag.stderr).toBe('chatflow: variable NOPE not found\n');
  });

  it('an error on a terminal is coloured unless told otherwise', async () => {
    const r = await cli(['variables', 'get', 'NOPE'], { tty: true });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(ANSI);
    expect(r.stderr).toContain('variable NOPE not found');
  });

  it('a JSON answer into a pipe loads no colour (neither chalk nor node:tty) and no node:http or node:tls, nor node:os, nor node:module on Node 20 (a script pays nothing for them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatflow-colour-'));
    try {
      // Node's own modules this process loaded, written to stderr at its exit.
      const hook = join(dir, 'builtins.cjs');
      writeFileSync(hook, `process.on('exit', () => process.stderr.write(process.moduleLoadList.join('\\n') + '\\n'));`);
      const run = (env: Record<string, string> = {}) =>
        execa(process.execPath, ['--require', hook, BIN, 'variables', 'list', '-o', 'json'], { reject: false, extendEnv: false, env: { ...cliEnv({ url: server.url }), ...env } });
      const piped = await run();
      expect(piped.exitCode, piped.stderr).toBe(0);
      expect(JSON.parse(piped.stdout)).toEqual(expected);
      expect(piped.stderr).not.toMatch(/NativeModule tty$/m);
      // The client speaks HTTP/1.1 over node:net itself (client/http1.ts); plain HTTP needs no TLS.
      expect(piped.stderr).toMatch(/NativeModule net$/m);
      expect(piped.stderr).not.toMatch(/NativeModule (_http_\w+|https?|tls|_tls_\w+)$/m);
      // Node 20 loads the bundle without node:module (bin/bundles.js), which brings the ES module loader.
      if (process.versions.node.startsWith('20.')) expect(piped.stderr).not.toMatch(/NativeModule (module|internal\/modules\/esm\/loader)$/m);
      // The config file and the cache are found from HOME and XDG_*, without node:os (cli/base/dirs.ts).
      expect(piped.stderr).not.toMatch(/NativeModule os$/m);
      // Forced on, the same command loads chalk, which asks the terminal.
      const forced = await run({ FORCE_COLOR: '1' });
      expect(forced.exitCode, forced.stderr).toBe(0);
      expect(forced.stderr).toMatch(/NativeModule tty$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('-o table gives a table even without a terminal, and never colour there', async () => {
    const r = await cli(['variables', 'get', 'PLAIN', '-o', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    const cells = Object.fromEntries(tableRows(r.stdout).map(([k, v]) => [k, v]));
    expect(cells).toMatchObject({ name: 'PLAIN', value: 'gpt-4o', type: 'static' });
  });
});
