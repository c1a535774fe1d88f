// `chatflow upsert-history`: records of upserts, listed with filters and soft-deleted by id.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { dateFlags, order, orderFlag } from '../filters.js';
import { dataCommand, examples, mutation } from '../options.js';
import { printNote } from '../output.js';
import { action, printPageOrStream, addPageOptions, confirmOrRefuse, plural, printDryRun } from '../run.js';

const COLUMNS = ['id', 'chatflowid', 'date', 'result'];

export function registerUpsertHistory(program: Command): void {
  const group = program.command('upsert-history').alias('uh').description('records of upsert operations');

  addPageOptions(orderFlag(dateFlags(dataCommand(group.command('list').alias('ls').description('list upsert history (of every chatflow without an id)').argument('[chatflowId]')))))
    .addHelpText('after', examples(['chatflow upsert-history list <chatflowId> --order desc', 'chatflow uh ls --start-date 2026-01-01 -o json']))
    .action(
      action(async (ctx: Context, chatflowId: string | undefined, opts: { order?: string; startDate?: string; endDate?: string; page?: string; limit?: string }) => {
        const client = await ctx.client();
        const query = { order: order(opts.order), startDate: opts.startDate, endDate: opts.endDate };
        await printPageOrStream(
          ctx,
          opts,
          { page: (page) => client.upsertHistory.list(chatflowId, { ...query, ...page }), stream: () => client.upsertHistory.stream(chatflowId, query) },
          { list: 'upsert history records', unit: 'record' },
          COLUMNS,
        );
      }),
    );

  mutation(
    dataCommand(group.command('delete').alias('rm').description('delete upsert history records (a soft delete: kept, never listed again)').argument('<id...>'))
      .option('--chatflow <id>', 'only records of this chatflow'),
    { destructive: true },
  )
    .addHelpText('after', examples(['chatflow upsert-history delete 0b1c… 4d5e… --yes']))
    .action(
      action(async (ctx: Context, ids: string[], opts: { chatflow?: string; yes?: boolean; dryRun?: boolean }) => {
        const path = opts.chatflow ? `/upsert-history/${opts.chatflow}` : '/upsert-history';
        if (opts.dryRun) return printDryRun(ctx, 'PATCH', path, { body: { ids } });
        await confirmOrRefuse(`Delete ${plural(ids.length, 'upsert history record')}?`, opts.yes);
        const { affected } = await (await ctx.client()).upsertHistory.delete(ids, opts.chatflow);
        printNote(`deleted ${plural(affected, 'record')}`);
        if (affected < ids.length) printNote(`${plural(ids.length - affected, 'id')} matched no record`);
      }),
    );
}
