// What many handlers do: confirm destructive changes, --dry-run, --file bodies, number flags,
// and the page-or-stream body of a list.
import { readFile } from 'node:fs/promises';
import type { Context } from './context.js';
import { EXIT, UsageError, exitCodeOf } from '../base/errors.js';
import type { MutationFlags, PageFlags } from './flags.js';
import { readStdin } from '../base/stdin.js';
import { MAX_PAGE_SIZE } from '../../schema/limits.js';
import { API_PREFIX, routeRequest, type RouteWithId } from '../../schema/paths.js';
import { idOf, records, unknownChatflow, type Named } from '../base/names.js';
import { canPrompt, confirm } from '../base/prompts.js';
import type { ListView } from '../render/list-table.js';
import type { Batches } from '../render/records.js';
import { plural } from '../render/text.js';

/**
 * Asks on a terminal; refuses (exit 2) without one unless --yes was given. `where` (a
 * `Context.target()`) ends the question: the server or database the change would land on.
 */
export async function confirmOrRefuse(question: string, yes: boolean | undefined, where?: string): Promise<void> {
  if (yes) return;
  if (where) question = `${question.replace(/\?$/, '')} ${where}?`;
  if (!canPrompt()) throw new UsageError(`${question.replace(/\?$/, '')}: refused without confirmation; pass --yes (-y) to go ahead`);
  if (!(await confirm(question))) throw new UsageError('cancelled; nothing was changed');
}

const namedDryRun = new WeakSet<Context>();

/** --dry-run: the request that would be sent, as data on stdout; where it would go, once, on stderr. */
export async function printDryRun(
  ctx: Context,
  { method, path }: { method: string; path: string },
  extra: { query?: Record<string, unknown>; body?: unknown } = {},
): Promise<void> {
  const query = Object.fromEntries(Object.entries(extra.query ?? {}).filter(([, v]) => v !== undefined));
  await ctx.print(
    { method, path: `${API_PREFIX}${path}`, ...(Object.keys(query).length ? { query } : {}), ...(extra.body !== undefined ? { body: extra.body } : {}) },
    { single: true, idField: 'path' },
  );
  if (namedDryRun.has(ctx)) return;
  namedDryRun.add(ctx);
  ctx.out.note(`dry run ${await ctx.target()}: nothing was sent`);
}

/** `--file body.json` or `--file -` (stdin): a whole JSON body. */
export async function readJsonFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--file ${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}

/** Flags given on the command line override the same keys of a --file body. */
export async function bodyFrom(file: string | undefined, flags: Record<string, unknown>): Promise<Record<string, unknown>> {
  const base = file ? await readJsonFile(file) : {};
  return { ...base, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
}

export function parseNumber(name: string, text: string | undefined, opts: { integer?: boolean; min?: number; max?: number } = {}): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  const bad = text.trim() === '' || !Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max);
  if (bad) {
    const range = opts.min !== undefined && opts.max !== undefined ? ` from ${opts.min} to ${opts.max}` : opts.min !== undefined ? ` of at least ${opts.min}` : '';
    throw new UsageError(`invalid ${name} "${text}": give ${opts.integer ? 'a whole number' : 'a number'}${range}`);
  }
  return n;
}

/** --page and --limit, for every list. */
export function pageFlags(opts: PageFlags) {
  return {
    page: parseNumber('--page', opts.page, { integer: true, min: 1 }),
    limit: parseNumber('--limit', opts.limit, { integer: true, min: 1, max: MAX_PAGE_SIZE }),
  };
}

/**
 * The body of a list command: with --page or --limit one page, and its total on stderr;
 * otherwise the whole list, streamed as it arrives.
 */
export async function printPageOrStream<T extends object>(
  ctx: Context,
  flags: PageFlags,
  source: {
    page: (page: { page?: number; limit?: number }) => Promise<{ items: T[]; total?: number; atLeast?: boolean }>;
    /** The whole list: its records one by one, or a chunk's worth at a time (a long list, faster). */
    stream: () => AsyncIterable<T> | Batches<T>;
  },
  what: { list: string; unit: string },
  columns: ListView,
): Promise<number> {
  const page = pageFlags(flags);
  if (page.page === undefined && page.limit === undefined) return ctx.printList(source.stream(), what.list, columns);
  const { items, total, atLeast } = await source.page(page);
  const n = await ctx.printList(items, what.list, columns);
  if (total !== undefined) ctx.out.note(atLeast ? `${plural(total, what.unit)} or more in all (the server answers a page without counting the rest)` : `${plural(total, what.unit)} in all`);
  return n;
}

/**
 * After an empty list of a chatflow's records: an empty list stays one (exit 0, on every server),
 * but where the server lists its chatflows and `text` is none of them, a note says so, with the
 * nearest name or id (`no chatflow demo-suport-bot on this server; did you mean demo-support-bot?`).
 */
export async function sayIfNoChatflow(ctx: Context, text: string): Promise<void> {
  const said = await unknownChatflow(await ctx.client(), text);
  if (said) ctx.out.note(said);
}

/**
 * A bulk command's body: `fn` for every argument, each failure reported on its own line as it
 * happens, and the run goes on (one stale id in an `xargs` pipeline must not block the rest, as
 * with kubectl). Answers the exit code: that of the first failure other than not found, else 3 if
 * any argument was not found, else 0. A server that cannot be reached or refuses the key ends the
 * run at once: every other argument would fail the same way.
 */
export async function eachArgument(ctx: Context, args: readonly string[], fn: (arg: string) => Promise<void>): Promise<number> {
  let notFound = false;
  let failed: number | undefined;
  for (const arg of args) {
    try {
      await fn(arg);
    } catch (err) {
      const code = exitCodeOf(err);
      if (code === EXIT.unreachable || code === EXIT.auth || code === EXIT.interrupted) throw err;
      ctx.out.error(err);
      if (code === EXIT.notFound) notFound = true;
      else failed ??= code;
    }
  }
  return failed ?? (notFound ? EXIT.notFound : EXIT.ok);
}

/** What a bulk delete does with its arguments, once each is looked up. */
export interface BulkDelete {
  /** `variable`: what the prompt counts. */
  noun: string;
  /** The id an argument means (not found: exit 3 for it; ambiguous: exit 2), looked up before anything is asked. */
  lookup(arg: string): Promise<string>;
  /** --dry-run: the requests the delete would send. */
  dryRun(ids: string[]): Promise<void>;
  /** Deletes one (`arg` as typed, for its line). */
  remove(id: string, arg: string): Promise<void>;
}

/**
 * A bulk delete: every argument looked up first, each one that is not there said on its own line,
 * so that the prompt counts and names only what exists; then each deleted. The exit code is
 * eachArgument's over both steps.
 */
export async function bulkDelete(ctx: Context, args: readonly string[], opts: MutationFlags, how: BulkDelete): Promise<number> {
  // Each record once, under the word first given for it (an id and its name are one record).
  const found = new Map<string, string>();
  const looked = await eachArgument(ctx, args, async (arg) => {
    const id = await how.lookup(arg);
    if (!found.has(id)) found.set(id, arg);
  });
  if (found.size === 0) return looked;
  if (opts.dryRun) {
    await how.dryRun([...found.keys()]);
    return looked;
  }
  await confirmOrRefuse(`Delete ${plural(found.size, how.noun)} (${[...found.values()].join(', ')})?`, opts.yes, await ctx.target());
  const deleted = await eachArgument(ctx, [...found.keys()], (id) => how.remove(id, found.get(id)!));
  const codes = [looked, deleted];
  return codes.find((c) => c !== EXIT.ok && c !== EXIT.notFound) ?? (codes.includes(EXIT.notFound) ? EXIT.notFound : EXIT.ok);
}

/**
 * `delete <id|name>...` of a kind with names (variables, assistants): ids, names and starts of ids
 * looked up in one list, taken once, so that the prompt counts what is there; one DELETE each.
 */
export async function deleteNamed<T>(
  ctx: Context,
  kind: Named<T>,
  idsOrNames: readonly string[],
  opts: MutationFlags,
  route: RouteWithId,
  del: (id: string, arg: string) => Promise<void>,
): Promise<number> {
  const client = await ctx.client();
  const all = await records(kind, client);
  return bulkDelete(ctx, idsOrNames, opts, {
    noun: kind.noun,
    lookup: async (arg) => idOf(kind, client, arg, all),
    dryRun: async (ids) => {
      for (const id of ids) await printDryRun(ctx, routeRequest(route, id));
    },
    remove: async (id, arg) => {
      await del(id, arg);
      ctx.out.note(`deleted ${kind.noun} ${id === arg ? id : `${arg} (${id})`}`);
    },
  });
}
