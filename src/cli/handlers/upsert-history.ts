// `chatflow upsert-history` handlers.
import type { Context } from '../core/context.js';
import { dateRange, type DateFlags } from '../dates.js';
import { plural } from '../render/text.js';
import { EXIT, UserError } from '../core/errors.js';
import { UPSERT_HISTORY_TABLE } from '../render/views.js';
import { confirmOrRefuse, eachArgument, printDryRun, printPageOrStream, type PageFlags } from './common.js';


interface ListFlags extends DateFlags, PageFlags {
  order?: 'asc' | 'desc';
}

export async function list(ctx: Context, chatflowId: string | undefined, opts: ListFlags): Promise<void> {
  const client = await ctx.client();
  const query = { order: opts.order, ...dateRange(opts, ctx.out.zone) };
  await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.upsertHistory.list(chatflowId, { ...query, ...page }), stream: () => client.upsertHistory.stream(chatflowId, query) },
    { list: 'upsert history records', unit: 'record' },
    UPSERT_HISTORY_TABLE,
  );
}

/** One request an id: the answer's count says exactly which ids matched no record. */
export async function remove(ctx: Context, ids: string[], opts: { chatflow?: string; yes?: boolean; dryRun?: boolean }): Promise<number | void> {
  const path = opts.chatflow ? `/upsert-history/${opts.chatflow}` : '/upsert-history';
  if (opts.dryRun) return printDryRun(ctx, 'PATCH', path, { body: { ids } });
  await confirmOrRefuse(`Delete ${plural(ids.length, 'upsert history record')}?`, opts.yes, await ctx.target());
  const client = await ctx.client();
  const of = opts.chatflow ? ` of chatflow ${opts.chatflow}` : '';
  return eachArgument(ctx, ids, async (id) => {
    const { affected } = await client.upsertHistory.delete([id], opts.chatflow);
    if (affected === 0) throw new UserError(`upsert history record ${id}${of} not found`, EXIT.notFound);
    ctx.out.note(`deleted upsert history record ${id}`);
  });
}
