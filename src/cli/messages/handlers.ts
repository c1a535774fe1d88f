// `chatflow messages list|delete` handlers.
import { ChatflowError, type ChatflowClient, type MessageDeletePlan, type MessageDeleteQuery, type MessageListQuery, type PlanOptions, type RatedChat } from '../../client/index.js';
import type { messages } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { UsageError } from '../base/errors.js';
import { messageQuery } from '../core/filters.js';
import { Batches } from '../render/records.js';
import { plural } from '../render/text.js';
import { MESSAGE_TABLE, RATED_MESSAGE_TABLE } from '../render/views.js';
import { confirmOrRefuse, pageFlags, printDryRun, printPageOrStream, sayIfNoChatflow } from '../core/handler-common.js';


const NOTHING = Buffer.alloc(0);
const NEWLINE = Buffer.from('\n');



/** The client's refusals of a delete it cannot make exact on this server, in the flags' words. */
const REFUSALS: Record<string, (chatflowId: string) => string> = {
  DELETE_BY_RATING: (flow) =>
    '--feedback-type cannot be deleted exactly on this server (Flowise also deletes the question before each rated answer): ' +
    `list them with 'chatflow messages list ${flow} --feedback-type <rating>' and delete each by --chat-id with --start-date and --end-date`,
  DELETE_MEMORY_TYPE_ALONE: () => "--memory-type without --chat-id is ignored by this server's delete (Flowise), which would delete more: add --chat-id",
};

/** The ratings a delete takes with its messages, as said after them. */
export const andRatings = (n: number) => (n > 0 ? ` (and ${plural(n, 'rating')})` : '');

/** A refusal because the server (Flowise) would take the ratings of kept messages, in the flags' words. */
function takesFeedback(chatflowId: string, chats: readonly RatedChat[]): string {
  const ratings = chats.reduce((n, c) => n + c.ratings, 0);
  const first = chats[0]!;
  const named = chats.slice(0, 3).map((c) => `${c.chatId} (${plural(c.ratings, 'rated message')} kept)`).join(', ') + (chats.length > 3 ? ` and ${chats.length - 3} more` : '');
  return (
    `this delete would also remove ${plural(ratings, 'rating')} of messages it keeps: this server (Flowise) deletes every rating of a chat it touches; ` +
    `chat${chats.length === 1 ? '' : 's'} ${named}. Delete whole chats instead ('chatflow messages delete ${chatflowId} --chat-id ${first.chatId}'), ` +
    `or narrow the filters to leave ${chats.length === 1 ? 'it' : 'them'} out`
  );
}

/** The client's plan of a delete, its refusals in the flags' words. */
export async function planDelete(client: ChatflowClient, chatflowId: string, query: MessageDeleteQuery, opts: PlanOptions = {}): Promise<MessageDeletePlan> {
  try {
    return await client.messages.planDelete(chatflowId, query, opts);
  } catch (err) {
    if (err instanceof ChatflowError && err.code === 'DELETE_TAKES_FEEDBACK') throw new UsageError(takesFeedback(chatflowId, err.ratedChats ?? []), { cause: err });
    const say = err instanceof ChatflowError && err.code ? REFUSALS[err.code] : undefined;
    if (say) throw new UsageError(say(chatflowId), { cause: err });
    if (err instanceof ChatflowError && err.code === 'DELETE_START_BOUNDARY') throw new UsageError(err.message.replaceAll('the start date', '--start-date'), { cause: err });
    throw err;
  }
}

export async function list(ctx: Context, chatflowId: string, opts: Flags<typeof messages, 'list'>): Promise<void> {
  const client = await ctx.client();
  const filters = messageQuery(opts, ctx.out.zone);
  const rated = opts.feedback || filters.feedbackType !== undefined;
  const query: MessageListQuery = { ...filters, order: opts.order, feedback: rated ? true : undefined };
  // A whole list as ndjson is the server's texts copied, not parsed and serialised again.
  const whole = pageFlags(opts);
  const n =
    whole.page === undefined && whole.limit === undefined && ctx.out.copiesJsonLines
      ? await ctx.out.printJsonLines(client.messages.streamFramed(chatflowId, query, NOTHING, NEWLINE), 'messages')
      : await printPageOrStream(
          ctx,
          opts,
          { page: (page) => client.messages.list(chatflowId, { ...query, ...page }), stream: () => new Batches(client.messages.streamBatches(chatflowId, query)) },
          { list: 'messages', unit: 'message' },
          rated ? RATED_MESSAGE_TABLE : MESSAGE_TABLE,
        );
  if (n === 0) await sayIfNoChatflow(ctx, chatflowId);
}

export async function remove(ctx: Context, chatflowId: string, opts: Flags<typeof messages, 'delete'>): Promise<void> {
  const filters = messageQuery(opts, ctx.out.zone);
  const client = await ctx.client();
  // The request as this server will really get it, and how many messages the same filters list.
  const plan = await planDelete(client, chatflowId, { ...filters, hardDelete: opts.hardDelete ? true : undefined });
  if (opts.dryRun) {
    await printDryRun(ctx, plan, { query: plan.query });
    return ctx.out.note(`${plural(plan.matched, 'message')}${andRatings(plan.ratings)} match`);
  }
  if (plan.matched === 0) return ctx.out.note('No messages match; nothing was deleted.');
  const filtered = Object.values(filters).some((v) => v !== undefined);
  await confirmOrRefuse(
    `Delete ${plural(plan.matched, 'message')} of chatflow ${chatflowId}${filtered ? ' matching the filters' : ' (ALL of its messages)'}${andRatings(plan.ratings)}?`,
    opts.yes,
    await ctx.target(),
  );
  try {
    const { affected } = await client.messages.delete(chatflowId, plan);
    ctx.out.note(`deleted ${plural(affected, 'message')}${andRatings(plan.ratings)}`);
  } catch (err) {
    if (err instanceof ChatflowError && err.status === 404) return ctx.out.note('No messages match; nothing was deleted.');
    throw err;
  }
}
