// `chatflow api`: any call below /api/v1 with the configured URL and key, like `gh api`.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ChatflowError, exitCodeForStatus } from '../../client/errors.js';
import type { Context } from '../context.js';
import { UsageError } from '../exit.js';
import { collect, dataCommand, examples } from '../options.js';
import { action, readJsonFile } from '../run.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

async function dataArg(data: string): Promise<unknown> {
  if (data === '-') return readJsonFile('-');
  const text = data.startsWith('@') ? await readFile(data.slice(1), 'utf8').catch(() => {
    throw new UsageError(`cannot read --data ${data}`);
  }) : data;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`);
  }
}

function queryArg(pairs: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new UsageError(`invalid --query "${pair}": use key=value`);
    (out[pair.slice(0, i)] ??= []).push(pair.slice(i + 1));
  }
  return out;
}

export function registerApi(program: Command): void {
  dataCommand(
    program
      .command('api')
      .description('send a raw request below /api/v1 with the configured URL and key; prints the response body')
      .argument('<method>', METHODS.join(', '))
      .argument('<path>', 'path below /api/v1, e.g. /variables')
      .option('-d, --data <json>', 'JSON body: inline, @file, or - for stdin')
      .option('--query <key=value>', 'query parameter (repeatable)', collect, []),
  )
    .addHelpText(
      'after',
      examples([
        'chatflow api GET /variables',
        "chatflow api POST /variables --data '{\"name\":\"A\",\"value\":\"1\"}'",
        'chatflow api GET /chatmessage/<chatflowId> --query sessionId=s1 --query order=DESC',
        'chatflow api PATCH /upsert-history --data @ids.json',
      ]),
    )
    .action(
      action(async (ctx: Context, method: string, path: string, opts: { data?: string; query: string[] }) => {
        const verb = method.toUpperCase();
        if (!METHODS.includes(verb)) throw new UsageError(`invalid method "${method}": use ${METHODS.join(', ')}`);
        const body = opts.data === undefined ? undefined : await dataArg(opts.data);
        const rel = path.startsWith('/') ? path : `/${path}`;
        const res = await (await ctx.client()).raw(verb, rel, body, queryArg(opts.query));
        // Flowise answers a path it lacks with its UI page, status 200: no answer at all. (Its
        // other text/html answers, such as ping's `pong`, are not pages.)
        if (res.status < 300 && typeof res.body === 'string' && /^\s*<(!doctype html|html)[\s>]/i.test(res.body)) {
          throw new ChatflowError('unsupported', `this server has no ${verb} ${rel}: it answered with its web page, as Flowise does for a path it lacks`);
        }
        if (res.body !== undefined) {
          process.stdout.write(typeof res.body === 'string' ? `${res.body}\n` : `${JSON.stringify(res.body, null, process.stdout.isTTY ? 2 : 0)}\n`);
        }
        if (res.status >= 400) process.exitCode = exitCodeForStatus(res.status);
      }),
    );
}
