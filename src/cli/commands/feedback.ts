// `chatflow feedback`: ratings of chat messages, listed per chatflow, created, updated.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../exit.js';
import { dateFlags, order, orderFlag, rating } from '../filters.js';
import { dataCommand, examples, mutation } from '../options.js';
import { askText, requireValue, select } from '../prompts.js';
import { action, printPageOrStream, addPageOptions, bodyFrom, printDryRun } from '../run.js';

const COLUMNS = ['id', 'messageId', 'chatId', 'rating', 'content', 'createdDate'];

interface ListFlags {
  chatId?: string;
  sortOrder?: string;
  order?: string;
  startDate?: string;
  endDate?: string;
  page?: string;
  limit?: string;
}

interface BodyFlags {
  messageId?: string;
  rating?: string;
  content?: string;
  chatId?: string;
  chatflowid?: string;
  file?: string;
  dryRun?: boolean;
}

export function registerFeedback(program: Command): void {
  const group = program.command('feedback').description('ratings (thumbs up/down) and comments on chat messages');

  addPageOptions(
    orderFlag(
      dateFlags(
        dataCommand(group.command('list').alias('ls').description("list a chatflow's feedback").argument('<chatflowId>'))
          .option('--chat-id <id>', 'one chat')
          .option('--sort-order <asc|desc>', 'sort by date (same as --order)'),
      ),
    ),
  )
    .addHelpText('after', examples(['chatflow feedback list <chatflowId>', 'chatflow feedback list <chatflowId> --start-date 2026-01-01 --order desc -o csv']))
    .action(
      action(async (ctx: Context, chatflowId: string, opts: ListFlags) => {
        const client = await ctx.client();
        const query = {
          chatId: opts.chatId,
          sortOrder: order(opts.sortOrder ?? opts.order),
          startDate: opts.startDate,
          endDate: opts.endDate,
        };
        await printPageOrStream(
          ctx,
          opts,
          { page: (page) => client.feedback.list(chatflowId, { ...query, ...page }), stream: () => client.feedback.stream(chatflowId, query) },
          { list: 'feedback', unit: 'rating' },
          COLUMNS,
        );
      }),
    );

  mutation(
    dataCommand(group.command('create').description('rate a chat message'))
      .option('--message-id <id>', 'the rated message (its chat and chatflow are filled in)')
      .option('--rating <rating>', 'up, down, THUMBS_UP or THUMBS_DOWN')
      .option('--content <text>', 'a comment')
      .option('--chat-id <id>', 'chat id (checked against the message)')
      .option('--chatflowid <id>', 'chatflow id (checked against the message)')
      .option('--file <path>', 'whole JSON body from a file, or - for stdin'),
  )
    .addHelpText('after', examples(['chatflow feedback create --message-id 7d0e… --rating up --content "spot on"']))
    .action(
      action(async (ctx: Context, opts: BodyFlags) => {
        const body = await bodyFrom(opts.file, {
          messageId: opts.messageId,
          rating: rating(opts.rating, '--rating'),
          content: opts.content,
          chatId: opts.chatId,
          chatflowid: opts.chatflowid,
        });
        body.messageId = await requireValue('message-id', body.messageId as string | undefined, { prompt: () => askText('Message id') });
        body.rating = rating(
          await requireValue('rating', body.rating as string | undefined, {
            prompt: () => select('Rating', [{ name: 'thumbs up', value: 'THUMBS_UP' }, { name: 'thumbs down', value: 'THUMBS_DOWN' }]),
          }),
          '--rating',
        );
        if (opts.dryRun) return printDryRun(ctx, 'POST', '/feedback', { body });
        await ctx.print(await (await ctx.client()).feedback.create(body as never), { single: true });
      }),
    );

  mutation(
    dataCommand(group.command('update').description('change a rating or its comment').argument('<id>', 'feedback id'))
      .option('--rating <rating>', 'up, down, THUMBS_UP or THUMBS_DOWN')
      .option('--content <text>', 'a comment')
      .option('--file <path>', 'whole JSON body from a file, or - for stdin'),
  )
    .addHelpText('after', examples(['chatflow feedback update 5c1a… --rating down --content "wrong answer"']))
    .action(
      action(async (ctx: Context, id: string, opts: BodyFlags) => {
        const body = await bodyFrom(opts.file, { rating: rating(opts.rating, '--rating'), content: opts.content });
        if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --rating, --content or --file');
        if (opts.dryRun) return printDryRun(ctx, 'PUT', `/feedback/${id}`, { body });
        await ctx.print(await (await ctx.client()).feedback.update(id, body), { single: true });
      }),
    );
}
