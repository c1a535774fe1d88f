// `chatflow messages list|delete` handlers.
import { ChatflowError, type ChatflowClient, type MessageListQuery } from '../../client/index.js';
import type { Context } from '../core/context.js';
import { messageQuery, type MessageFilterFlags } from '../filters.js';
import { plural } from '../render/text.js';
import { confirmOrRefuse, printDryRun, printPageOrStream } from './common.js';

const COLUMNS = ['createdDate', 'role', 'sessionId', 'chatType', 'content', 'id'];

interface ListFlags extends MessageFilterFlags {
  order?: 'asc' | 'desc';
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

export async function list(ctx: Context, chatflowId: string, opts: ListFlags): Promise<void> {
  const client = await ctx.client();
  const filters = messageQuery(opts as Record<string, unknown>);
  const query: MessageListQuery = { ...filters, order: opts.order, feedback: opts.feedback || filters.feedbackType !== undefined ? true : undefined };
  await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.messages.list(chatflowId, { ...query, ...page }), stream: () => client.messages.stream(chatflowId, query) },
    { list: 'messages', unit: 'message' },
    COLUMNS,
  );
}

export async function remove(ctx: Context, chatflowId: string, opts: DeleteFlags): Promise<void> {
  const filters = messageQuery(opts as Record<string, unknown>);
  const query = { ...filters, hardDelete: opts.hardDelete ? true : undefined };
  if (opts.dryRun) return printDryRun(ctx, 'DELETE', `/chatmessage/${chatflowId}`, { query });
  const client = await ctx.client();
  const filtered = Object.values(filters).some((v) => v !== undefined);
  if (!opts.yes) {
    const { feedbackType, ...rest } = filters;
    const n = await countMatching(client, chatflowId, { ...rest, ...(feedbackType ? { feedback: true, feedbackType } : {}) });
    if (n === 0) return ctx.out.note('No messages match; nothing was deleted.');
    await confirmOrRefuse(
      `Delete ${plural(n, 'message')} of chatflow ${chatflowId}${filtered ? ' matching the filters' : ' (ALL of its messages)'}, with their feedback?`,
      false,
    );
  }
  try {
    const { affected } = await client.messages.delete(chatflowId, query);
    ctx.out.note(`deleted ${plural(affected, 'message')}`);
    if (affected === 0) ctx.out.note('No messages matched.');
  } catch (err) {
    if (err instanceof ChatflowError && err.status === 404) return ctx.out.note('No messages match; nothing was deleted.');
    throw err;
  }
}
