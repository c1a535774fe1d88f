// `chatflow upsert-history` handlers.
import type { Context } from '../core/context.js';
import { plural } from '../render/text.js';
import { confirmOrRefuse, printDryRun, printPageOrStream } from './common.js';

const COLUMNS = ['id', 'chatflowid', 'date', 'result'];

interface ListFlags {
  order?: 'asc' | 'desc';
  startDate?: string;
  endDate?: string;
  page?: string;
  limit?: string;
}

export async function list(ctx: Context, chatflowId: string | undefined, opts: ListFlags): Promise<void> {
  const client = await ctx.client();
  const query = { order: opts.order, startDate: opts.startDate, endDate: opts.endDate };
  await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.upsertHistory.list(chatflowId, { ...query, ...page }), stream: () => client.upsertHistory.stream(chatflowId, query) },
    { list: 'upsert history records', unit: 'record' },
    COLUMNS,
  );
}

export async function remove(ctx: Context, ids: string[], opts: { chatflow?: string; yes?: boolean; dryRun?: boolean }): Promise<void> {
  const path = opts.chatflow ? `/upsert-history/${opts.chatflow}` : '/upsert-history';
  if (opts.dryRun) return printDryRun(ctx, 'PATCH', path, { body: { ids } });
  await confirmOrRefuse(`Delete ${plural(ids.length, 'upsert history record')}?`, opts.yes);
  const { affected } = await (await ctx.client()).upsertHistory.delete(ids, opts.chatflow);
  ctx.out.note(`deleted ${plural(affected, 'record')}`);
  if (affected < ids.length) ctx.out.note(`${plural(ids.length - affected, 'id')} matched no record`);
}
