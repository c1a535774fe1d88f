// `chatflow chatflows export|import|diff|sync` (issue 33): whole chatflows as files for git, and
// promoted between servers with the plan / confirm / apply of `variables sync`.
import { readFile, readdir, stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ChatflowClient } from '../../client/index.js';
import { fileNames, fileText, parseFile, toPortable, type Portable } from './files.js';
import { chatflowKind, credentialsOf, type ChatflowKind } from './promote.js';
import type { chatflows as group } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { EXIT, UsageError, UserError } from '../base/errors.js';
import { makePrivateDir, writePrivateFile } from '../base/private-files.js';
import { buildPlan, type PlanItem } from '../promote/plan.js';
import { plural } from '../render/text.js';
import { promote, runPlan, type PromoteFlags } from '../promote/handlers.js';

/** The server a command's client talks to, in its words. */
async function targetLabel(ctx: Context, client: ChatflowClient): Promise<string> {
  return (await ctx.usesEmbedded()) || !(await ctx.connection()).url ? 'the embedded database' : client.serverUrl;
}

// ---------------------------------------------------------------- export


/** The chatflow files in `dir` besides `written` (other JSON files are not ours to judge). */
async function otherFiles(dir: string, written: ReadonlySet<string>): Promise<{ file: string; name: string; id: string }[]> {
  const out = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json') && !written.has(f)).sort()) {
    const parsed = parseFile(await readFile(join(dir, file), 'utf8').catch(() => ''));
    if (typeof parsed !== 'string') out.push({ file, name: parsed.name, id: parsed.id ?? '' });
  }
  return out;
}

/** Writes `text` to `path` unless it holds that already (a file unchanged keeps its time, for make and git). */
async function writeIfChanged(path: string, text: string): Promise<'created' | 'updated' | 'unchanged'> {
  const before = await readFile(path, 'utf8').catch(() => undefined);
  if (before === text) return 'unchanged';
  await writePrivateFile(path, text);
  return before === undefined ? 'created' : 'updated';
}

/** `chatflows` are ids (names were resolved by their value set); none: every chatflow. */
export async function exportFlows(ctx: Context, chatflows: string[], opts: Flags<typeof group, 'export'>): Promise<void> {
  if (opts.prune && chatflows.length) throw new UsageError('--prune deletes the files of chatflows the server lacks: it needs the whole export (name no chatflow)');
  const client = await ctx.client();
  const [defs, credentials] = await Promise.all([client.chatflows.definitions(), credentialsOf(client, client.serverUrl)]);
  const have = new Set(defs.map((d) => d.id));
  const absent = chatflows.filter((id) => !have.has(id));
  if (absent.length) {
    throw new UserError(`no definition of chatflow ${absent.join(', ')} on this server (only records name ${absent.length === 1 ? 'it' : 'them'}): nothing to export`, EXIT.notFound);
  }
  const wanted = chatflows.length ? new Set(chatflows) : undefined;
  // Named among all the server's chatflows: a chatflow's file is the same in a whole export and alone.
  const names = fileNames(defs);
  makePrivateDir(opts.dir);
  const rows: { name: string; file: string; result: string; id: string }[] = [];
  for (const def of defs) {
    if (wanted && !wanted.has(def.id)) continue;
    const portable = toPortable(def, credentials, (id) =>
      ctx.out.warn(`chatflow ${def.name}: credential ${id} is not among the server's credentials; kept as an id`),
    );
    const file = names.get(def.id)!;
    rows.push({ name: def.name, file, result: await writeIfChanged(join(opts.dir, file), fileText(portable)), id: def.id });
  }
  // A chatflow renamed or deleted on the server leaves its old file: an import of DIR would make it again.
  const stale = wanted ? [] : await otherFiles(opts.dir, new Set(rows.map((r) => r.file)));
  if (opts.prune) {
    for (const f of stale) {
      await unlink(join(opts.dir, f.file));
      rows.push({ ...f, result: 'deleted' });
    }
  }
  await ctx.print(rows, { columns: ['name', 'file', 'result'], idField: 'file' });
  const count = (r: string) => rows.filter((x) => x.result === r).length;
  ctx.out.note(
    `exported ${plural(count('created') + count('updated') + count('unchanged'), 'chatflow')} to ${opts.dir}: ${count('created')} new, ${count('updated')} changed, ${count('unchanged')} unchanged` +
      (opts.prune ? `, ${count('deleted')} deleted` : '') +
      (credentials === undefined ? '' : ' (credentials by name and kind)'),
  );
  if (!opts.prune && stale.length) {
    ctx.out.warn(`${plural(stale.length, 'file')} in ${opts.dir} name${stale.length === 1 ? 's' : ''} no chatflow of this server (${stale.map((f) => f.file).join(', ')}): an import would make ${stale.length === 1 ? 'it' : 'them'} again; --prune deletes ${stale.length === 1 ? 'it' : 'them'}`);
  }
}

// ---------------------------------------------------------------- import


/** The files given: each file, and each directory's `*.json` (by name). */
async function filesOf(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const st = await stat(p).catch(() => undefined);
    if (!st) throw new UsageError(`cannot read ${p}: no such file or directory`);
    if (!st.isDirectory()) {
      out.push(p);
      continue;
    }
    const inside = (await readdir(p)).filter((f) => f.endsWith('.json')).sort();
    if (inside.length === 0) throw new UsageError(`${p} holds no .json file: give the directory chatflows export wrote, or files`);
    out.push(...inside.map((f) => join(p, f)));
  }
  return out;
}

/** The files whose id the target holds under another name: updates that rename it. */
function renames(kind: ChatflowKind, sources: Portable[], target: Portable[]): { source: Portable; target: Portable; item: PlanItem }[] {
  const byId = new Map(target.map((t) => [t.id, t]));
  return sources.flatMap((s) => {
    const d = s.id === undefined ? undefined : byId.get(s.id);
    if (!d || d.name === s.name) return [];
    const entry = { name: s.name, action: 'update' as const, changes: [{ field: 'name', from: d.name, to: s.name }, ...kind.compare(s, d)], sourceId: s.id!, targetId: d.id! };
    return [{ source: s, target: d, item: { entry, apply: (c: ChatflowClient) => kind.update(c, s, d) } }];
  });
}

/** The chatflows of the files given (directories: their *.json); a bad file stops everything. */
async function readFlows(paths: string[]): Promise<Portable[]> {
  const sources: Portable[] = [];
  for (const file of await filesOf(paths)) {
    const parsed = parseFile(await readFile(file, 'utf8'), basename(file, '.json'));
    if (typeof parsed === 'string') throw new UsageError(`${file}: ${parsed}; nothing was changed`);
    sources.push(parsed);
  }
  return sources;
}

export async function importFlows(ctx: Context, paths: string[], opts: Flags<typeof group, 'import'>): Promise<number | void> {
  const sources = await readFlows(paths);
  const client = await ctx.client();
  if (opts.keepIds && (await client.server()) === 'flowise') {
    throw new UsageError('--keep-ids: Flowise makes its own chatflow ids (it takes none); leave --keep-ids out');
  }
  const kind = chatflowKind({ keepIds: opts.keepIds === true, warn: (msg) => ctx.out.warn(msg) });
  const where = await targetLabel(ctx, client);
  const target = await kind.list(client);
  // With --keep-ids a file's chatflow is the target's of its id, renamed if need be; by name otherwise.
  const renamed = opts.keepIds ? renames(kind, sources, target) : [];
  const taken = new Set(renamed.flatMap((r) => [r.source, r.target]));
  // The target's other chatflows are none of an import's business.
  const plan = [
    ...renamed.map((r) => r.item),
    ...buildPlan(kind, sources.filter((s) => !taken.has(s)), target.filter((t) => !taken.has(t)), false).filter((p) => p.entry.action !== 'only-in-target'),
  ];
  return runPlan(ctx, {
    kind,
    plan,
    head: `chatflows: ${plural(sources.length, 'file')} → ${where}`,
    target: client,
    targetLabel: where,
    mode: 'sync',
    opts,
    // Creating is what an import is asked for; replacing a flow there asks first.
    asks: (pending) => pending.some((e) => e.action !== 'create'),
    refusal: kind.refusal(plan, sources, client, where),
  });
}

// ---------------------------------------------------------------- diff and sync

/** `flows/`, `./flows`, `/srv/flows`, `.`: a directory, where a bare word is a profile. */
const PATH_LIKE = /^\.{1,2}$|^\.{0,2}\/|\/$/;

async function promoteFlows(ctx: Context, names: string[], opts: PromoteFlags, mode: 'diff' | 'sync'): Promise<number | void> {
  const only = names.length ? names : undefined;
  const kind = chatflowKind({ ...(only ? { only } : {}), keepIds: true, warn: (msg) => ctx.out.warn(msg) });
  // --from a directory (written as a path, never a profile's name): the files chatflows export wrote
  // there, as git keeps them, against the server --to names.
  const source = PATH_LIKE.test(opts.from) ? { label: `files in ${opts.from}`, items: async () => (await readFlows([opts.from])).filter((f) => !only || only.includes(f.name)) } : undefined;
  return promote(ctx, kind, opts, mode, {
    ...(source ? { source } : {}),
    plan: (plan) => {
      const found = new Set(plan.map((p) => p.entry.name));
      const absent = (only ?? []).filter((n) => !found.has(n));
      if (absent.length) throw new UserError(`no chatflow named ${absent.map((n) => JSON.stringify(n)).join(', ')} on either side`, EXIT.notFound);
      return plan;
    },
    refusal: (plan, source, target) => kind.refusal(plan, source, target, 'the target'),
  });
}

export const diffFlows = (ctx: Context, names: string[], opts: Flags<typeof group, 'diff'>) => promoteFlows(ctx, names, opts, 'diff');
export const syncFlows = (ctx: Context, names: string[], opts: Flags<typeof group, 'sync'>) => promoteFlows(ctx, names, opts, 'sync');
