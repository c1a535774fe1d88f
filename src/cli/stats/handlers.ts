// `chatflow stats` handler: the figures are ./compute.ts, the chart ./render.ts.
import type { stats as def } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { timeZone } from '../base/dates.js';
import { queryDates } from '../core/filters.js';
import { renderStats } from './render.js';
import { computeStats, type Granularity } from './compute.js';
import { parseNumber, sayIfNoChatflow } from '../core/handler-common.js';


export async function stats(ctx: Context, chatflowId: string, opts: Flags<typeof def>): Promise<void> {
  // Stats count by UTC periods, and say so: a plain date is a UTC day here whatever the zone.
  const { startDate, endDate } = queryDates(opts, timeZone({ utc: true }));
  const start = startDate === undefined ? undefined : Date.parse(startDate);
  const end = endDate === undefined ? undefined : Date.parse(endDate);
  const top = parseNumber('--top', opts.top, { integer: true, min: 1, max: 100 }) ?? 5;
  const s = await computeStats(await ctx.client(), chatflowId, { by: opts.by, start, end, chatType: opts.chatType });
  if (ctx.out.format === 'table' && !ctx.flags.quiet && !ctx.flags.fields) {
    await ctx.out.writePaged(renderStats(s, { width: ctx.out.columns, color: ctx.out.color, top }));
  } else if (ctx.out.format === 'csv' || ctx.out.format === 'ndjson' || ctx.flags.quiet) {
    await ctx.print(s.periods, { idField: 'period' });
  } else {
    await ctx.print(s, { single: true, idField: 'chatflowId' });
  }
  if (s.messages === 0 && start === undefined && end === undefined) await sayIfNoChatflow(ctx, chatflowId);
}
