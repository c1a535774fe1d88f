// `chatflow api` handler: any call below /api/v1 with the configured URL and key, like `gh api`.
import { readFile } from 'node:fs/promises';
import { ChatflowError } from '../../client/index.js';
import type { api as def } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { UsageError, exitCodeForStatus } from '../base/errors.js';
import { readJsonFile } from '../core/handler-common.js';

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

export async function api(ctx: Context, verb: string, path: string, opts: Flags<typeof def>): Promise<number | undefined> {
  const body = opts.data === undefined ? undefined : await dataArg(opts.data);
  const rel = path.startsWith('/') ? path : `/${path}`;
  const res = await (await ctx.client()).raw(verb, rel, body, queryArg(opts.query ?? []));
  // Flowise answers a path it lacks with its UI page, status 200: no answer at all. (Its
  // other text/html answers, such as ping's `pong`, are not pages.)
  if (res.status < 300 && typeof res.body === 'string' && /^\s*<(!doctype html|html)[\s>]/i.test(res.body)) {
    throw new ChatflowError('unsupported', `this server has no ${verb} ${rel}: it answered with its web page, as Flowise does for a path it lacks`);
  }
  if (res.body !== undefined) {
    ctx.out.write(typeof res.body === 'string' ? `${res.body}\n` : `${JSON.stringify(res.body, null, ctx.out.stdout.isTTY ? 2 : 0)}\n`);
  }
  return res.status >= 400 ? exitCodeForStatus(res.status) : undefined;
}
