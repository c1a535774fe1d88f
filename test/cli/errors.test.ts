// Exit codes 0–5 as documented in `chatflow --help`, the one-line error (JSON with -o json), no
// stack trace unless --debug, and --debug's request lines that never show the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_LINE, closedPort, runCli, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { COMMANDS } from '../../src/cli/commands.js';
import type { CommandDef } from '../../src/cli/core/command.js';
import { runInPty } from '../helpers/pty.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'sk-errors-0123456789abcdef';
let server: TestServer; // requires KEY
let fixture: FlowiseFixture;
let variableId: string;

/** Talks to `server` with the right key unless told otherwise. */
const cli = (args: string[], opts: CliOptions = {}) =>
  runCli(args, { url: server.url, ...opts, env: { CHATFLOW_API_KEY: KEY, ...opts.env } });

/** stderr is exactly one line. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

beforeAll(async () => {
  [server, fixture] = await Promise.all([startTestServer({ apiKeys: [KEY] }), startFlowiseFixture()]);
  const res = await call('POST', `${server.api}/variables`, { name: 'KEPT', value: '1' }, { authorization: `Bearer ${KEY}` });
  variableId = res.body.id;
});
afterAll(async () => {
  await Promise.all([server?.dispose(), fixture?.close()]);
});

describe('help', () => {
  it("a group's help lists its commands, asked either way; the top level lists every group", async () => {
    for (const args of [['help', 'messages'], ['messages', '--help'], ['msg']]) {
      const r = await runCli(args);
      expect(r.stdout + r.stderr, args.join(' ')).toMatch(/list\|ls \[options\] <chatflowId>[\s\S]*delete\|rm \[options\] <chatflowId>[\s\S]*tail \[options\] <chatflowId>/);
    }
    const top = await runCli(['--help']);
    expect(top.exitCode).toBe(0);
    for (const group of ['variables|variable', 'feedback', 'assistants|assistant', 'messages|message', 'upsert-history|uh', 'config']) expect(top.stdout).toContain(`  ${group} `);
    expect(top.stdout).toContain('  stats <chatflowId> ');
  });

  it('at 80 columns: the top level is short, its command list first; exit code 130 listed', async () => {
    const top = await runInPty(['--help'], { columns: 80 });
    const lines = top.screen.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    expect(lines.findIndex((l) => l === 'Commands:')).toBeLessThan(10);
    // A screenful and a little: each command group is a line (chats, issue 39, took the 70th).
    expect(lines.length).toBeLessThan(72);
    expect(top.screen).toMatch(/^ {2}130 +interrupted \(Ctrl-C\)/m);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it("a group's help lists its commands before the options", async () => {
    const r = await runCli(['variables', '--help']);
    expect(r.stdout.indexOf('Commands:')).toBeGreaterThan(0);
    expect(r.stdout.indexOf('Commands:')).toBeLessThan(r.stdout.indexOf('Global options:'));
  });

  it("a command's own flags and examples come first, the global ones after under their heading; help GROUP CMD is GROUP CMD --help", async () => {
    const [viaHelp, viaFlag] = await Promise.all([runInPty(['help', 'variables', 'set'], { columns: 80 }), runInPty(['variables', 'set', '--help'], { columns: 80 })]);
    expect(viaHelp.screen).toBe(viaFlag.screen);
    const text = viaFlag.screen.replace(/\u001b\[[0-9;]*m/g, '');
    const at = (s: string) => text.indexOf(s);
    expect(at('Usage: chatflow variables set')).toBe(0);
    expect(at('--type <type>')).toBeLessThan(at('Examples:'));
    expect(at('Examples:')).toBeLessThan(at('Global options:'));
    expect(at('Global options:')).toBeLessThan(at('--url <url>'));
  });

  it("no line of any command's help is wider than 80 columns (examples and notes wrapped between words)", async () => {
    const paths: string[][] = [];
    const walk = (defs: CommandDef[], path: string[]) => {
      for (const d of defs) if (!d.hidden) (d.commands ? walk(d.commands, [...path, d.name]) : paths.push([...path, d.name]));
    };
    walk(COMMANDS, []);
    const helps = await Promise.all(paths.map((p) => runCli([...p, '--help'])));
    helps.forEach((r, i) => {
      expect(r.exitCode, paths[i]!.join(' ')).toBe(0);
      for (const line of r.stdout.split('\n')) expect(line.length, `${paths[i]!.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
    });
  });

  it('examples are never broken inside a word: a long one goes on as a shell continuation line', async () => {
    const r = await runInPty(['messages', 'list', '--help'], { columns: 60 });
    const lines = r.screen.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    const examples = lines.slice(lines.indexOf('Examples:') + 1, lines.indexOf('Global options:') - 1);
    expect(examples.length).toBeGreaterThan(0);
    for (const line of examples) expect(line.length, line).toBeLessThan(60);
    // Joined back, the continuation lines are the examples as defined.
    const joined = examples.map((l) => l.trim()).join('\n').replace(/ \\\n/g, ' ');
    expect(joined).toContain('chatflow messages list <chatflowId> --session-id s1 --start-date 2026-01-01 --end-date 2026-01-31');
  });
});

describe('exit codes', () => {
  it('0: success', async () => {
    const r = await cli(['variables', 'list', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${variableId}\n`);
    expect(r.stderr).toBe('');
  });

  it('1: a server error', async () => {
    fixture.failNext('/api/v1/variables', 500);
    const r = await runCli(['variables', 'list'], { url: fixture.url, env: { CHATFLOW_API_KEY: fixture.apiKey } });
    expect(r.exitCode).toBe(1);
    expect(oneLine(r.stderr)).toBe('chatflow: variables list: the server failed reading variables (HTTP 500)');
  });

  it('2: a missing flag with --no-input', async () => {
    const r = await cli(['variables', 'create', '--value', 'x', '--no-input']);
    expect(r.exitCode).toBe(2);
    expect(oneLine(r.stderr)).toBe('chatflow: missing --name: pass it, or run in a terminal to be asked');
  });

  it('2: a delete refused without --yes (no terminal to ask on), and nothing is deleted', async () => {
    const r = await cli(['variables', 'delete', variableId]);
    expect(r.exitCode).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/refused without confirmation; pass --yes/);
    const still = await call('GET', `${server.api}/variables`, undefined, { authorization: `Bearer ${KEY}` });
    expect(still.body.map((v: { id: string }) => v.id)).toContain(variableId);
  });

  it('2: a usage error, in one line naming the command, the flag as typed and what to do', async () => {
    const cases: [string[], string][] = [
      [['variables', 'list', '--bogus'], 'chatflow: variables list: unknown flag --bogus; see chatflow variables list --help'],
      [['variables', 'list', '--limt', '3'], 'chatflow: variables list: unknown flag --limt; did you mean --limit? (chatflow variables list --help)'],
      [['variables', 'lst'], 'chatflow: variables: unknown command lst; did you mean list or ls? (chatflow variables --help)'],
      [['variables', 'list', '-o', 'xml'], 'chatflow: variables list: -o/--output xml: expected one of table, wide, json, ndjson, csv, yaml; see chatflow variables list --help'],
      [['variables', 'list', '--limit'], 'chatflow: variables list: --limit needs a value; see chatflow variables list --help'],
      [['messages', 'list'], 'chatflow: messages list: missing <chatflowId>; see chatflow messages list --help'],
      [['--url', 'http://127.0.0.1:9', 'variables', 'set', 'A', 'B', 'C'], 'chatflow: variables set: 3 arguments given, at most 2 expected (quote a value with spaces); see chatflow variables set --help'],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    results.forEach((r, i) => {
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr.trimEnd()).toBe(cases[i]![1]);
    });
  });

  it('2: the server rejects the request as invalid (422)', async () => {
    const r = await cli(['variables', 'create', '--name', 'x'.repeat(300)]);
    expect(r.exitCode).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/^chatflow: .*name/);
  });

  it('3: an unknown id', async () => {
    const r = await cli(['variables', 'update', '00000000-0000-4000-8000-000000000000', '--value', 'x']);
    expect(r.exitCode).toBe(3);
    expect(oneLine(r.stderr)).toBe('chatflow: variable 00000000-0000-4000-8000-000000000000 not found');
  });

  it('4: no key, or a wrong key, against a server that requires one', async () => {
    const [none, wrong] = await Promise.all([
      cli(['variables', 'list'], { env: { CHATFLOW_API_KEY: undefined } }),
      cli(['variables', 'list', '--api-key', 'sk-wrong-000000000000']),
    ]);
    expect(none.exitCode).toBe(4);
    expect(oneLine(none.stderr)).toMatch(/unauthorized: the server requires an API key/);
    expect(wrong.exitCode).toBe(4);
    expect(oneLine(wrong.stderr)).toMatch(/unauthorized: the server refused the API key/);
    expect(wrong.stderr).not.toContain('sk-wrong-000000000000');
  });

  it('5: connection refused on a closed port, naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli(['variables', 'list'], { url });
    expect(r.exitCode).toBe(5);
    expect(oneLine(r.stderr)).toContain(`cannot reach ${url}`);
    expect(r.stdout).toBe('');
  });

  it('5: a server that does not answer within --timeout', async () => {
    const started = Date.now();
    const r = await runCli(['api', 'GET', '/__hang', '--timeout', '0.5'], { url: fixture.url });
    expect(r.exitCode).toBe(5);
    expect(oneLine(r.stderr)).toMatch(/^chatflow: .*(timed out|did not answer)/i);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('how errors are shown', () => {
  it('with -o json the error is JSON on stderr, stdout empty', async () => {
    const r = await cli(['variables', 'get', 'NOPE', '-o', 'json']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(oneLine(r.stderr))).toEqual({ error: { message: 'variable NOPE not found', exitCode: 3 } });
  });

  it('--debug adds the request lines and the stack trace, never the key', async () => {
    // (without --debug, the same error is one line: see '3: an unknown id')
    const debug = await cli(['variables', 'update', '00000000-0000-4000-8000-000000000000', '--value', 'x', '--debug', '--api-key', KEY]);
    expect(debug.exitCode).toBe(3);
    expect(debug.stderr).toMatch(new RegExp(`debug: PUT ${server.url}/api/v1/variables/00000000-0000-4000-8000-000000000000 404 \\d+ms`));
    expect(debug.stderr).toMatch(STACK_LINE);
    expect(debug.stderr).not.toContain(KEY);
  });

  it('--debug on success: request lines on stderr only, the key (from CHATFLOW_API_KEY) nowhere', async () => {
    const r = await cli(['variables', 'list', '-o', 'json', '--debug']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`debug: GET ${server.url}/api/v1/variables 200 \\d+ms`));
    expect(r.stderr).not.toContain(KEY);
    expect(r.stderr).not.toContain('0123456789abcdef');
  });
});
