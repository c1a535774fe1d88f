// `chatflow variables|assistants diff|sync` handlers: plan and apply (./plan.ts), show
// (./render.ts), confirm, report.
import type { assistantsPromote, variablesPromote } from './commands.js';
import type { Flags } from '../core/command.js';
import { openSession, type Session } from '../core/connection.js';
import type { Context } from '../core/context.js';
import { EXIT, UsageError, UserError, exitCodeOf, messageOf } from '../base/errors.js';
import type { ChatflowClient } from '../../client/index.js';
import { applyPlan, assistantKind, buildPlan, locate, variableKind, type Kind, type PlanEntry, type PlanItem, type Side } from './plan.js';
import { appliedLine, renderPlan } from './render.js';
import { plural } from '../render/text.js';
import { confirmOrRefuse } from '../core/handler-common.js';

/** What promote() reads: sync's flags and diff's --exit-code (each command's flags fit it). */
export type PromoteFlags = Flags<(typeof assistantsPromote)[1]> & Flags<(typeof assistantsPromote)[0]>;

/** A plan made, to show, and to apply to `target` unless it is a diff or a dry run (sync, import). */
export interface PlanRun<T> {
  kind: Kind<T>;
  plan: PlanItem[];
  head: string;
  target: ChatflowClient;
  targetLabel: string;
  mode: 'diff' | 'sync';
  opts: Pick<PromoteFlags, 'dryRun' | 'yes' | 'exitCode'>;
  /** Whether applying these asks first (default: any change). */
  asks?: (pending: PlanEntry[]) => boolean;
  /** Why the plan cannot be applied (sync refuses; a diff or a dry run warns). */
  refusal?: string;
}

/** Shows a plan, and for sync confirms, applies and reports it; answers the exit code of --exit-code. */
export async function runPlan<T>(ctx: Context, run: PlanRun<T>): Promise<number | void> {
  const { kind, plan, head, target, mode, opts } = run;
  const to = { label: run.targetLabel };
  const human = ctx.out.format === 'table' && !ctx.flags.quiet && !ctx.flags.fields;
  const entries = plan.map((p) => p.entry);
  const pending = plan.filter((p) => p.apply);
  const conflicts = entries.filter((e) => e.action === 'conflict');
  const width = ctx.out.columns;
  const color = ctx.out.color;

  if (mode === 'diff' || opts.dryRun || pending.length === 0) {
    if (human) ctx.out.write(renderPlan(entries, head, { width, color }));
    else await ctx.print(entries, { columns: ['action', 'name', 'changes'], idField: 'name' });
    for (const c of conflicts) ctx.out.warn(`${kind.noun} ${c.name}: ${c.note}`);
    if (run.refusal && pending.length) ctx.out.warn(run.refusal);
    if (mode === 'sync' && pending.length === 0) ctx.out.note(`Nothing to change: the target's ${kind.nouns} match the source.`);
    else if (mode === 'sync') ctx.out.note(`dry run: nothing was changed on ${to.label} (${plural(pending.length, 'change')} planned)`);
    // --exit-code: 1 when the two sides differ in anything the plan shows.
    return opts.exitCode && entries.some((e) => e.action !== 'unchanged') ? EXIT.error : undefined;
  }

  if (human) ctx.out.write(renderPlan(entries, head, { width, color }));
  if (run.refusal) throw new UserError(run.refusal, EXIT.notFound);
  if (run.asks?.(pending.map((p) => p.entry)) ?? true) await confirmOrRefuse(`Apply ${plural(pending.length, 'change')} to ${to.label}?`, opts.yes);
  const { applied, failed } = await applyPlan(pending, target, (err) => messageOf(err, ctx.out.words), (e) => {
    if (human) ctx.out.write(appliedLine(e, kind.noun, ctx.out.paint, kind.brief?.bind(kind)));
  });
  if (!human) await ctx.print(entries, { columns: ['action', 'name', 'result', 'changes'], idField: 'name' });
  for (const c of conflicts) ctx.out.warn(`${kind.noun} ${c.name}: ${c.note}; left as it is`);
  if (failed) {
    throw new UserError(`${applied} of ${plural(pending.length, 'change')} applied to ${to.label}; ${pending.length - applied} failed`, exitCodeOf(failed));
  }
  ctx.out.note(`applied ${plural(applied, 'change')} to ${to.label}`);
  if (conflicts.length) {
    throw new UserError(`${plural(conflicts.length, 'conflict')} left unresolved (several ${kind.nouns} with one name)`, EXIT.error);
  }
}

/** Both sides' records, planned by `kind` (`plan` may narrow the plan), then runPlan. */
/** A source that is no server (chatflows' files): its label in the plan, and its records. */
export interface LocalSource<T> {
  label: string;
  items: () => Promise<T[]>;
}

export async function promote<T>(
  ctx: Context,
  kind: Kind<T>,
  opts: PromoteFlags,
  mode: 'diff' | 'sync',
  extra: {
    plan?: (plan: PlanItem[]) => PlanItem[];
    refusal?: (plan: PlanItem[], source: T[], target: ChatflowClient) => string | undefined;
    /** Instead of the server --from names. */
    source?: LocalSource<T>;
  } = {},
): Promise<number | void> {
  const [from, to] = await Promise.all([
    extra.source ? { label: extra.source.label } : locate(opts.from, '--from', opts.fromApiKey),
    locate(opts.to, '--to', opts.toApiKey),
  ]);
  if (!extra.source && ((from as Side).url ?? 'embedded') === (to.url ?? 'embedded')) {
    throw new UsageError(`--from and --to are the same server (${to.url ?? 'the embedded database'}): nothing to promote`);
  }
  const endpoints: Session[] = [];
  const open = (side: Side) => openSession(side, { timeoutMs: ctx.timeoutMs(), trace: ctx.out.debug ? ctx.out.trace : undefined });
  try {
    const source = extra.source ? undefined : await open(from as Side);
    if (source) endpoints.push(source);
    const target = await open(to);
    endpoints.push(target);
    const [srcItems, dstItems] = await Promise.all([source ? kind.list(source.client) : extra.source!.items(), kind.list(target.client)]);
    const built = buildPlan(kind, srcItems, dstItems, opts.prune === true);
    const plan = extra.plan ? extra.plan(built) : built;
    return await runPlan(ctx, {
      kind,
      plan,
      head: `${kind.nouns}: ${from.label} → ${to.label}`,
      target: target.client,
      targetLabel: to.label,
      mode,
      opts,
      refusal: extra.refusal?.(plan, srcItems, target.client),
    });
  } finally {
    for (const e of endpoints.reverse()) await e.close().catch(() => undefined);
  }
}

export const diffVariables = (ctx: Context, opts: Flags<(typeof variablesPromote)[0]>) => promote(ctx, variableKind, opts, 'diff');
export const syncVariables = (ctx: Context, opts: Flags<(typeof variablesPromote)[1]>) => promote(ctx, variableKind, opts, 'sync');
export const diffAssistants = (ctx: Context, opts: Flags<(typeof assistantsPromote)[0]>) => promote(ctx, assistantKind(), opts, 'diff');
export const syncAssistants = (ctx: Context, opts: Flags<(typeof assistantsPromote)[1]>) => promote(ctx, assistantKind({ credential: opts.credential }), opts, 'sync');
