// `chatflow upsert-history` handlers.
import type { upsertHistory } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { queryDates } from '../core/filters.js';
import { plural } from '../render/text.js';
import { EXIT, UserError, exitCodeOf } from '../base/errors.js';
import { pick, records, upsertHistoryOf } from '../base/names.js';
import { UPSERT_HISTORY_TABLE } from '../render/views.js';
import { bulkDelete, printDryRun, printPageOrStream, sayIfNoChatflow } from '../core/handler-common.js';
import { routeRequest } from '../../schema/paths.js';


type ListFlags = Flags<typeof upsertHistory, 'list'>;

export async function list(ctx: Context, chatflowId: string | undefined, opts: ListFlags): Promise<void> {
  const client = await ctx.client();
  const query = { order: opts.order, ...queryDates(opts, ctx.out.zone) };
  const n = await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.upsertHistory.list(chatflowId, { ...query, ...page }), stream: () => client.upsertHistory.stream(chatflowId, query) },
    { list: 'upsert history records', unit: 'record' },
    UPSERT_HISTORY_TABLE,
  );
  if (n === 0 && chatflowId !== undefined) await sayIfNoChatflow(ctx, chatflowId);
}

/** Ids (or their starts) looked up in one list first; then one request an id: its count says whether it matched. */
export async function remove(ctx: Context, ids: string[], opts: Flags<typeof upsertHistory, 'delete'>): Promise<number | void> {
  const client = await ctx.client();
  const kind = upsertHistoryOf(opts.chatflow);
  const all = await records(kind, client);
  const of = opts.chatflow ? ` of chatflow ${opts.chatflow}` : '';
  return bulkDelete(ctx, ids, opts, {
    noun: 'upsert history record',
    // Ids are free text on our service: an id, else the start of one (a UUID's, as tables show it).
    lookup: async (arg) => {
      try {
        return pick(kind, all, arg).id;
      } catch (err) {
        throw exitCodeOf(err) === EXIT.notFound ? new UserError(`upsert history record ${arg}${of} not found`, EXIT.notFound) : err;
      }
    },
    dryRun: (found) => printDryRun(ctx, opts.chatflow ? routeRequest('deleteUpsertHistory', opts.chatflow) : routeRequest('deleteAnyUpsertHistory'), { body: { ids: found } }),
    remove: async (id) => {
      const { affected } = await client.upsertHistory.delete([id], opts.chatflow);
      if (affected === 0) throw new UserError(`upsert history record ${id}${of} not found`, EXIT.notFound);
      ctx.out.note(`deleted upsert history record ${id}`);
    },
  });
}
