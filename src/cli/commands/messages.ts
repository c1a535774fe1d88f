// `chatflow messages`: a chatflow's chat messages, listed with filters and deleted in bulk.
import type { Command } from 'commander';
import { ChatflowError, type ChatflowClient, type MessageListQuery } from '../../client/index.js';
import type { Context } from '../context.js';
import { messageFilterFlags, messageQuery, order, type MessageFilterFlags } from '../filters.js';
import { dataCommand, examples, mutation } from '../options.js';
import { printNote } from '../output.js';
import { action, printPageOrStream, addPageOptions, confirmOrRefuse, plural, printDryRun } from '../run.js';
import { registerTail } from './tail.js';

const COLUMNS = ['createdDate', 'role', 'sessionId', 'chatType', 'content', 'id'];

interface ListFlags extends MessageFilterFlags {
  order?: string;
  feedback?: boolean;
  page?: string;
  limit?: string;
}

interface DeleteFlags extends MessageFilterFlags {
  hardDelete?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

/** How many messages a delete would remove: one small page with the total when the server gives it. */
async function countMatching(client: ChatflowClient, chatflowId: string, query: MessageListQuery): Promise<number> {
  const { items, total } = await client.messages.list(chatflowId, { ...query, page: 1, limit: 1 });
  if (total !== undefined) return total;
  if (items.length === 0) return 0;
  let n = 0;
  for await (const _ of client.messages.stream(chatflowId, query)) n++;
  return n;
}

export function registerMessages(program: Command): void {
  const group = program.command('messages').alias('message').alias('msg').description("a chatflow's chat messages");

  addPageOptions(
    messageFilterFlags(dataCommand(group.command('list').alias('ls').description('list messages, oldest first').argument('<chatflowId>')))
      .option('--feedback', 'only messages that have feedback (each with its feedback)')
      .option('--order <asc|desc>', 'sort by date: asc (default) or desc'),
  )
    .addHelpText(
      'after',
      examples([
        'chatflow messages list <chatflowId>',
        'chatflow messages list <chatflowId> --session-id s1 --start-date 2026-01-01 --end-date 2026-01-31',
        'chatflow messages list <chatflowId> --feedback --feedback-type down -o json',
        'chatflow messages list <chatflowId> -o ndjson > messages.ndjson      # streamed, any size',
      ]),
    )
    .action(
      action(async (ctx: Context, chatflowId: string, opts: ListFlags) => {
        const client = await ctx.client();
        const filters = messageQuery(opts);
        const query: MessageListQuery = {
          ...filters,
          order: order(opts.order),
          feedback: opts.feedback || filters.feedbackType !== undefined ? true : undefined,
        };
        await printPageOrStream(
          ctx,
          opts,
          { page: (page) => client.messages.list(chatflowId, { ...query, ...page }), stream: () => client.messages.stream(chatflowId, query) },
          { list: 'messages', unit: 'message' },
          COLUMNS,
        );
      }),
    );

  mutation(
    messageFilterFlags(
      dataCommand(
        group
          .command('delete')
          .alias('rm')
          .description('delete the messages that match the filters (with no filter: ALL messages of the chatflow), and their feedback')
          .argument('<chatflowId>'),
      ),
    ).option('--hard-delete', 'also clear the messages from the third-party memory (Flowise)'),
    { destructive: true },
  )
    .addHelpText(
      'after',
      examples([
        'chatflow messages delete <chatflowId> --session-id s1            # asks, showing how many match',
        'chatflow messages delete <chatflowId> --end-date 2025-12-31 --yes',
        'chatflow messages delete <chatflowId> --dry-run',
      ]),
    )
    .action(
      action(async (ctx: Context, chatflowId: string, opts: DeleteFlags) => {
        const query = { ...messageQuery(opts), hardDelete: opts.hardDelete ? true : undefined };
        if (opts.dryRun) return printDryRun(ctx, 'DELETE', `/chatmessage/${chatflowId}`, { query });
        const client = await ctx.client();
        const filtered = Object.entries(messageQuery(opts)).some(([, v]) => v !== undefined);
        if (!opts.yes) {
          const { feedbackType, ...rest } = messageQuery(opts);
          const n = await countMatching(client, chatflowId, { ...rest, ...(feedbackType ? { feedback: true, feedbackType } : {}) });
          if (n === 0) return printNote('No messages match; nothing was deleted.');
          await confirmOrRefuse(
            `Delete ${plural(n, 'message')} of chatflow ${chatflowId}${filtered ? ' matching the filters' : ' (ALL of its messages)'}, with their feedback?`,
            false,
          );
        }
        try {
          const { affected } = await client.messages.delete(chatflowId, query);
          printNote(`deleted ${plural(affected, 'message')}`);
          if (affected === 0) printNote('No messages matched.');
        } catch (err) {
          if (err instanceof ChatflowError && err.status === 404) return printNote('No messages match; nothing was deleted.');
          throw err;
        }
      }),
    );

  registerTail(group);
}
