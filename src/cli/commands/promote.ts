// `chatflow variables diff|sync` and `chatflow assistants diff|sync`: promote configuration from one
// environment to another. Records are matched by name (a variable's `name`, an assistant's
// `details.name`); the plan says what would be created, updated, left alone or is only in the
// target; sync applies it after confirmation and reports each change. Nothing is deleted in the
// target without --prune. Values of secret-looking names are masked everywhere they are shown.
import chalk from 'chalk';
import type { Command } from 'commander';
import { ChatflowError, type Assistant, type ChatflowClient, type Variable } from '../../client/index.js';
import { stdoutColor, stdoutColumns } from '../color.js';
import { resolveConnection, validateUrl } from '../config.js';
import { warnIfKeyFileReadable, type Context } from '../context.js';
import { UsageError } from '../exit.js';
import { addGeneralOptions, addOutputOptions, examples } from '../options.js';
import { printNote, printWarning } from '../output.js';
import { action, confirmOrRefuse, plural } from '../run.js';
import { displayWidth, padEnd, sanitize, truncate } from '../text.js';

// ---------------------------------------------------------------- the two servers

/** Names whose values are never shown. */
export const SECRET_NAME = /key|secret|token|password|credential/i;
export const MASK = '****';

interface Endpoint {
  label: string;
  /** The server root, or `embedded` (for the same-server check). */
  where: string;
  client: ChatflowClient;
  close(): Promise<void>;
}

/** A profile's own URL and key: CHATFLOW_URL / CHATFLOW_API_KEY / CHATFLOW_PROFILE must not turn both sides into one. */
async function locate(spec: string, flag: string, apiKey: string | undefined): Promise<{ label: string; url?: string; apiKey?: string }> {
  const s = spec.trim();
  if (!s) throw new UsageError(`${flag} needs a profile name or a URL`);
  if (/^https?:\/\//i.test(s)) {
    const url = validateUrl(s);
    return { label: url, url, ...(apiKey ? { apiKey } : {}) };
  }
  const env = { ...process.env };
  delete env.CHATFLOW_URL;
  delete env.CHATFLOW_API_KEY;
  delete env.CHATFLOW_PROFILE;
  let conn;
  try {
    conn = await resolveConnection({ flagProfile: s }, env);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message.replace('(--profile)', `(${flag})`));
    throw err;
  }
  if (!apiKey && conn.apiKeySource === 'profile') await warnIfKeyFileReadable();
  const key = apiKey ?? conn.apiKey;
  return { label: `profile ${s}${conn.url ? ` (${conn.url})` : ' (embedded database)'}`, ...(conn.url ? { url: conn.url } : {}), ...(key ? { apiKey: key } : {}) };
}

async function open(ctx: Context, place: { label: string; url?: string; apiKey?: string }): Promise<Endpoint> {
  const { createClient } = await import('../../client/index.js');
  const timeoutMs = ctx.timeoutMs();
  const onDebug = ctx.debug ? (line: string) => printNote(`debug: ${line}`) : undefined;
  if (place.url) {
    const client = createClient({ baseUrl: place.url, apiKey: place.apiKey, timeoutMs, onDebug });
    return { label: place.label, where: place.url, client, close: () => client.close() };
  }
  const { startEmbedded } = await import('../embedded.js');
  const embedded = await startEmbedded();
  const client = createClient({ baseUrl: embedded.url, apiKey: embedded.apiKey, timeoutMs, onDebug });
  return {
    label: place.label,
    where: 'embedded',
    client,
    close: async () => {
      await client.close();
      await embedded.close();
    },
  };
}

// ---------------------------------------------------------------- plans

export type PlanAction = 'create' | 'update' | 'unchanged' | 'only-in-target' | 'delete' | 'conflict';

export interface Change {
  field: string;
  from?: unknown;
  to?: unknown;
}

/** One line of a plan, as shown and as printed with -o json. */
export interface PlanEntry {
  name: string;
  action: PlanAction;
  changes?: Change[];
  sourceId?: string;
  targetId?: string;
  secret?: true;
  note?: string;
  /** After sync: created, updated, deleted, failed (unchanged and kept entries have none). */
  result?: 'created' | 'updated' | 'deleted' | 'failed';
  error?: string;
}

interface PlanItem {
  entry: PlanEntry;
  apply?: (target: ChatflowClient) => Promise<void>;
}

/** What diff and sync need to know of a kind of record. */
interface Kind<T> {
  noun: string;
  nouns: string;
  list(client: ChatflowClient): Promise<T[]>;
  name(t: T): string;
  id(t: T): string;
  /** The fields a create sets, as changes from nothing. */
  created(src: T): Change[];
  /** The differences that matter (empty: unchanged). */
  compare(src: T, dst: T): Change[];
  create(client: ChatflowClient, src: T): Promise<void>;
  update(client: ChatflowClient, src: T, dst: T): Promise<void>;
  remove(client: ChatflowClient, dst: T): Promise<void>;
  secret?(t: T): boolean;
}

function groupByName<T>(kind: Kind<T>, items: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const n = kind.name(t);
    const list = out.get(n);
    if (list) list.push(t);
    else out.set(n, [t]);
  }
  return out;
}

export function buildPlan<T>(kind: Kind<T>, source: T[], target: T[], prune: boolean): PlanItem[] {
  const src = groupByName(kind, source);
  const dst = groupByName(kind, target);
  const items: PlanItem[] = [];
  for (const [name, srcs] of src) {
    const dsts = dst.get(name) ?? [];
    const s = srcs[0]!;
    const secret = kind.secret?.(s) ? ({ secret: true } as const) : {};
    if (srcs.length > 1 || dsts.length > 1) {
      const where = srcs.length > 1 ? `${srcs.length} in the source` : `${dsts.length} in the target`;
      items.push({ entry: { name, action: 'conflict', ...secret, note: `${where} have this name; match them by hand` } });
      continue;
    }
    const d = dsts[0];
    if (!d) {
      items.push({ entry: { name, action: 'create', changes: kind.created(s), sourceId: kind.id(s), ...secret }, apply: (c) => kind.create(c, s) });
      continue;
    }
    const changes = kind.compare(s, d);
    const ids = { sourceId: kind.id(s), targetId: kind.id(d) };
    if (changes.length === 0) items.push({ entry: { name, action: 'unchanged', ...ids, ...secret } });
    else items.push({ entry: { name, action: 'update', changes, ...ids, ...secret }, apply: (c) => kind.update(c, s, d) });
  }
  for (const [name, dsts] of dst) {
    if (src.has(name)) continue;
    for (const d of dsts) {
      const secret = kind.secret?.(d) ? ({ secret: true } as const) : {};
      items.push(
        prune
          ? { entry: { name, action: 'delete', targetId: kind.id(d), ...secret }, apply: (c) => kind.remove(c, d) }
          : { entry: { name, action: 'only-in-target', targetId: kind.id(d), ...secret, note: 'kept (--prune deletes it)' } },
      );
    }
  }
  const rank: Record<PlanAction, number> = { create: 0, update: 1, delete: 2, conflict: 3, 'only-in-target': 4, unchanged: 5 };
  return items.sort((a, b) => rank[a.entry.action] - rank[b.entry.action] || a.entry.name.localeCompare(b.entry.name));
}

// ---------------------------------------------------------------- variables and assistants

const masked = (secret: boolean, v: unknown) => (secret && v !== undefined && v !== null && v !== '' ? MASK : v);

export const variableKind: Kind<Variable> = {
  noun: 'variable',
  nouns: 'variables',
  async list(client) {
    const out: Variable[] = [];
    for await (const v of client.variables.stream()) out.push(v);
    return out;
  },
  name: (v) => v.name,
  id: (v) => v.id,
  secret: (v) => SECRET_NAME.test(v.name),
  created(v) {
    const secret = SECRET_NAME.test(v.name);
    return [
      { field: 'value', to: masked(secret, v.value ?? '') },
      { field: 'type', to: v.type ?? 'static' },
    ];
  },
  compare(s, d) {
    const secret = SECRET_NAME.test(s.name);
    const changes: Change[] = [];
    if ((s.value ?? '') !== (d.value ?? '')) changes.push({ field: 'value', from: masked(secret, d.value ?? ''), to: masked(secret, s.value ?? '') });
    if ((s.type || 'static') !== (d.type || 'static')) changes.push({ field: 'type', from: d.type, to: s.type });
    return changes;
  },
  async create(client, s) {
    await client.variables.create({ name: s.name, value: s.value ?? '', type: s.type || 'static' });
  },
  async update(client, s, d) {
    const body: { value?: string; type?: string } = {};
    if ((s.value ?? '') !== (d.value ?? '')) body.value = s.value ?? '';
    if ((s.type || 'static') !== (d.type || 'static')) body.type = s.type || 'static';
    await client.variables.update(d.id, body);
  },
  async remove(client, d) {
    await client.variables.delete(d.id);
  },
};

/** JSON with sorted keys: equal values, equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The details that travel: all but `id`, which the provider assigns in each environment. */
function portableDetails(a: Assistant): Record<string, unknown> {
  const { id: _id, ...rest } = (a.details ?? {}) as Record<string, unknown>;
  return rest;
}

const maskDetail = (key: string, v: unknown) => masked(SECRET_NAME.test(key), v);

export function assistantKind(opts: { credential?: string } = {}): Kind<Assistant> {
  return {
    noun: 'assistant',
    nouns: 'assistants',
    async list(client) {
      const out: Assistant[] = [];
      for await (const a of client.assistants.stream()) out.push(a);
      return out;
    },
    name: (a) => String(a.details?.name ?? ''),
    id: (a) => a.id,
    created(a) {
      const changes: Change[] = Object.entries(portableDetails(a))
        .filter(([k]) => k !== 'name')
        .map(([k, v]) => ({ field: `details.${k}`, to: maskDetail(k, v) }));
      if (a.type) changes.push({ field: 'type', to: a.type });
      if (a.iconSrc) changes.push({ field: 'iconSrc', to: a.iconSrc });
      const credential = opts.credential ?? a.credential;
      if (credential) changes.push({ field: 'credential', to: MASK });
      return changes;
    },
    compare(s, d) {
      const changes: Change[] = [];
      const dd = (d.details ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(portableDetails(s))) {
        if (canonical(v) !== canonical(dd[k])) changes.push({ field: `details.${k}`, from: maskDetail(k, dd[k]), to: maskDetail(k, v) });
      }
      if (s.type && s.type !== d.type) changes.push({ field: 'type', from: d.type, to: s.type });
      if (s.iconSrc && s.iconSrc !== d.iconSrc) changes.push({ field: 'iconSrc', from: d.iconSrc, to: s.iconSrc });
      return changes;
    },
    async create(client, s) {
      const credential = opts.credential ?? s.credential;
      await client.assistants.create({
        details: portableDetails(s) as Assistant['details'],
        ...(s.type ? { type: s.type } : {}),
        ...(s.iconSrc ? { iconSrc: s.iconSrc } : {}),
        ...(credential ? { credential } : {}),
      });
    },
    async update(client, s, d) {
      // Keys only the target has are kept (our service merges details, Flowise replaces them).
      const details = { ...(d.details as Record<string, unknown>), ...portableDetails(s) };
      await client.assistants.update(d.id, {
        details: details as Assistant['details'],
        ...(s.type && s.type !== d.type ? { type: s.type } : {}),
        ...(s.iconSrc && s.iconSrc !== d.iconSrc ? { iconSrc: s.iconSrc } : {}),
      });
    },
    async remove(client, d) {
      await client.assistants.delete(d.id);
    },
  };
}

// ---------------------------------------------------------------- showing a plan

const SIGN: Record<PlanAction, string> = { create: '+', update: '~', delete: '-', conflict: '!', 'only-in-target': '?', unchanged: '=' };
const WORD: Record<PlanAction, string> = {
  create: 'create',
  update: 'update',
  delete: 'delete',
  conflict: 'conflict',
  'only-in-target': 'only in target',
  unchanged: 'unchanged',
};

function shown(v: unknown, max = 40): string {
  if (v === undefined || v === null) return '(none)';
  if (v === MASK) return MASK;
  return truncate(sanitize(typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v)), max);
}

function colourFor(action: PlanAction): (s: string) => string {
  switch (action) {
    case 'create':
      return chalk.green;
    case 'update':
      return chalk.yellow;
    case 'delete':
      return chalk.red;
    case 'conflict':
      return chalk.magenta;
    default:
      return chalk.dim;
  }
}

export function summary(entries: PlanEntry[]): string {
  const count = (a: PlanAction) => entries.filter((e) => e.action === a).length;
  const parts = [`${count('create')} to create`, `${count('update')} to update`];
  if (count('delete')) parts.push(`${count('delete')} to delete`);
  parts.push(`${count('unchanged')} unchanged`);
  if (count('only-in-target')) parts.push(`${count('only-in-target')} only in the target (kept; --prune deletes them)`);
  if (count('conflict')) parts.push(`${plural(count('conflict'), 'conflict')}`);
  return parts.join(', ');
}

/** The plan as text for a terminal: one line per record, one more per changed field. */
export function renderPlan(entries: PlanEntry[], head: string, opts: { width: number; color: boolean }): string {
  const width = Math.max(40, opts.width) - 1;
  const paint = (a: PlanAction, s: string) => (opts.color ? colourFor(a)(s) : s);
  const nameW = Math.min(32, Math.max(4, ...entries.map((e) => displayWidth(sanitize(e.name)))));
  const lines = [opts.color ? chalk.bold(head) : head, ''];
  if (entries.length === 0) lines.push('  (nothing on either side)');
  for (const e of entries) {
    const name = padEnd(truncate(sanitize(e.name), nameW), nameW);
    const word = padEnd(WORD[e.action], 15);
    const start = `  ${SIGN[e.action]} ${name}  ${word}`;
    let tail = '';
    let below: Change[] = [];
    if (e.action === 'create' && e.changes?.length) {
      // On the line when it fits, else one field a line like an update.
      tail = e.changes.map((c) => `${c.field.replace(/^details\./, '')} ${shown(c.to, 32)}`).join(', ');
      if (displayWidth(start) + 1 + displayWidth(tail) > width) {
        tail = '';
        below = e.changes;
      }
    }
    if (e.action === 'conflict' || e.action === 'only-in-target') tail = e.note ?? '';
    if (e.action === 'update') below = e.changes ?? [];
    lines.push(paint(e.action, truncate(`${start}${tail ? ` ${tail}` : ''}`.trimEnd(), width)));
    for (const c of below) {
      const text = e.action === 'create' ? `      ${c.field}: ${shown(c.to)}` : `      ${c.field}: ${shown(c.from)} → ${shown(c.to)}`;
      lines.push(truncate(text, width));
    }
  }
  lines.push('', summary(entries));
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------- the commands

interface PromoteFlags {
  from: string;
  to: string;
  fromApiKey?: string;
  toApiKey?: string;
  prune?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  credential?: string;
}

const PAST: Record<string, PlanEntry['result']> = { create: 'created', update: 'updated', delete: 'deleted' };

async function run<T>(ctx: Context, kind: Kind<T>, opts: PromoteFlags, mode: 'diff' | 'sync'): Promise<void> {
  const [from, to] = await Promise.all([locate(opts.from, '--from', opts.fromApiKey), locate(opts.to, '--to', opts.toApiKey)]);
  if ((from.url ?? 'embedded') === (to.url ?? 'embedded')) {
    throw new UsageError(`--from and --to are the same server (${from.url ?? 'the embedded database'}): nothing to promote`);
  }
  const format = await ctx.format();
  const human = format === 'table' && !ctx.globals.quiet && !ctx.globals.fields;
  const endpoints: Endpoint[] = [];
  try {
    const source = await open(ctx, from);
    endpoints.push(source);
    const target = await open(ctx, to);
    endpoints.push(target);
    const [srcItems, dstItems] = await Promise.all([kind.list(source.client), kind.list(target.client)]);
    const plan = buildPlan(kind, srcItems, dstItems, opts.prune === true);
    const entries = plan.map((p) => p.entry);
    const pending = plan.filter((p) => p.apply);
    const conflicts = entries.filter((e) => e.action === 'conflict');
    const head = `${kind.nouns}: ${source.label} → ${target.label}`;
    const width = stdoutColumns();
    const color = stdoutColor();

    if (mode === 'diff' || opts.dryRun || pending.length === 0) {
      if (human) process.stdout.write(renderPlan(entries, head, { width, color }));
      else await ctx.print(entries, { columns: ['action', 'name', 'changes'], idField: 'name' });
      for (const c of conflicts) printWarning(`${kind.noun} ${c.name}: ${c.note}`);
      if (mode === 'sync' && pending.length === 0) printNote(`Nothing to change: the target's ${kind.nouns} match the source.`);
      else if (mode === 'sync') printNote(`dry run: nothing was changed (${plural(pending.length, 'change')} planned)`);
      return;
    }

    if (human) process.stdout.write(renderPlan(entries, head, { width, color }));
    await confirmOrRefuse(`Apply ${plural(pending.length, 'change')} to ${target.label}?`, opts.yes);
    let failed: unknown;
    let applied = 0;
    for (const item of pending) {
      const e = item.entry;
      try {
        await item.apply!(target.client);
        e.result = PAST[e.action];
        applied++;
        if (human) {
          const fields = e.action === 'update' ? ` (${(e.changes ?? []).map((c) => c.field).join(', ')})` : '';
          const line = `  ✓ ${e.result} ${kind.noun} ${sanitize(e.name)}${fields}`;
          process.stdout.write(`${color ? chalk.green(line) : line}\n`);
        }
      } catch (err) {
        failed ??= err;
        e.result = 'failed';
        e.error = err instanceof Error ? err.message : String(err);
        if (human) {
          const line = `  ✗ ${e.action} ${kind.noun} ${sanitize(e.name)} failed: ${sanitize(e.error)}`;
          process.stdout.write(`${color ? chalk.red(line) : line}\n`);
        }
      }
    }
    if (!human) await ctx.print(entries, { columns: ['action', 'name', 'result', 'changes'], idField: 'name' });
    for (const c of conflicts) printWarning(`${kind.noun} ${c.name}: ${c.note}; left as it is`);
    if (failed) {
      const err = new Error(`${applied} of ${plural(pending.length, 'change')} applied to ${target.label}; ${pending.length - applied} failed`);
      throw Object.assign(err, { exitCode: failed instanceof ChatflowError ? failed.exitCode : 1 });
    }
    printNote(`applied ${plural(applied, 'change')} to ${target.label}`);
    if (conflicts.length) {
      throw Object.assign(new Error(`${plural(conflicts.length, 'conflict')} left unresolved (several ${kind.nouns} with one name)`), { exitCode: 1 });
    }
  } finally {
    for (const e of endpoints.reverse()) await e.close().catch(() => undefined);
  }
}

function promoteCommand(group: Command, name: 'diff' | 'sync', kindName: string, description: string): Command {
  const cmd = group
    .command(name)
    .description(description)
    .requiredOption('--from <profile|url>', `where the ${kindName} come from: a profile name (chatflow config) or a server URL`)
    .requiredOption('--to <profile|url>', `where they go: a profile name or a server URL`)
    .option('--from-api-key <key>', 'API key for a --from URL (a profile brings its own)')
    .option('--to-api-key <key>', 'API key for a --to URL (a profile brings its own)')
    .option('--timeout <seconds>', 'request timeout (default 30)');
  if (name === 'sync') {
    cmd
      .option('--prune', `also delete the ${kindName} only the target has`)
      .option('-y, --yes', 'do not ask for confirmation')
      .option('--dry-run', 'show the plan and change nothing');
  } else {
    cmd.option('--prune', `show the ${kindName} only the target has as deletions (as sync --prune would)`);
  }
  return addGeneralOptions(addOutputOptions(cmd));
}

const PROMOTE_HELP = (key: string) =>
  `\nRecords are matched by ${key}. Values of names matching ${SECRET_NAME} are shown as ${MASK}.\n` +
  `Nothing is deleted in the target unless --prune is given. Without a terminal, sync needs --yes.\n` +
  `CHATFLOW_URL, CHATFLOW_API_KEY and CHATFLOW_PROFILE are not used here: name both sides.\n`;

export function registerVariablesPromote(group: Command): void {
  promoteCommand(group, 'diff', 'variables', 'compare the variables of two servers (by name)')
    .addHelpText('after', examples(['chatflow variables diff --from staging --to prod', 'chatflow variables diff --from staging --to http://flowise:3000 --to-api-key "$KEY" -o json']) + PROMOTE_HELP('name'))
    .action(action((ctx: Context, opts: PromoteFlags) => run(ctx, variableKind, opts, 'diff')));
  promoteCommand(group, 'sync', 'variables', 'create and update variables in one server so they match another (by name)')
    .addHelpText(
      'after',
      examples([
        'chatflow variables sync --from staging --to prod                 # shows the plan, asks, applies',
        'chatflow variables sync --from staging --to prod --dry-run',
        'chatflow variables sync --from staging --to prod --prune --yes   # also delete what staging lacks',
      ]) + PROMOTE_HELP('name'),
    )
    .action(action((ctx: Context, opts: PromoteFlags) => run(ctx, variableKind, opts, 'sync')));
}

export function registerAssistantsPromote(group: Command): void {
  promoteCommand(group, 'diff', 'assistants', 'compare the assistants of two servers (by details.name)')
    .addHelpText('after', examples(['chatflow assistants diff --from staging --to prod']) + PROMOTE_HELP('details.name'))
    .action(action((ctx: Context, opts: PromoteFlags) => run(ctx, assistantKind(), opts, 'diff')));
  promoteCommand(group, 'sync', 'assistants', 'create and update assistants in one server so they match another (by details.name)')
    .option('--credential <id>', "credential for assistants created in the target (default: the source's; credentials are per server)")
    .addHelpText(
      'after',
      examples(['chatflow assistants sync --from staging --to prod', 'chatflow assistants sync --from staging --to prod --credential 7c1e… --yes']) +
        PROMOTE_HELP('details.name') +
        'An assistant\'s credential is a per-server reference: it is set on create and never changed on update.\n',
    )
    .action(action((ctx: Context, opts: PromoteFlags) => run(ctx, assistantKind({ credential: opts.credential }), opts, 'sync')));
}
