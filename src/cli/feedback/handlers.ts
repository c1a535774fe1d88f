// `chatflow feedback` handlers.
import type { feedback } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { UsageError } from '../base/errors.js';
import { parseValue, RATING } from '../base/values.js';
import { queryDates } from '../core/filters.js';
import { FEEDBACK, idFrom, isId, messagesOf, pick, records } from '../base/names.js';
import { FEEDBACK_TABLE } from '../render/views.js';
import { askText, requireValue, select } from '../base/prompts.js';
import { bodyFrom, printDryRun, printPageOrStream, sayIfNoChatflow } from '../core/handler-common.js';
import { routeRequest } from '../../schema/paths.js';



/** What create and update read (update's flags are a part of create's). */
type BodyFlags = Flags<typeof feedback, 'create'>;

export async function list(ctx: Context, chatflowId: string, opts: Flags<typeof feedback, 'list'>): Promise<void> {
  const client = await ctx.client();
  const query = { chatId: opts.chatId, sortOrder: opts.sortOrder ?? opts.order, ...queryDates(opts, ctx.out.zone) };
  const n = await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.feedback.list(chatflowId, { ...query, ...page }), stream: () => client.feedback.stream(chatflowId, query) },
    { list: 'feedback', unit: 'rating' },
    FEEDBACK_TABLE,
  );
  if (n === 0) await sayIfNoChatflow(ctx, chatflowId);
}

export async function create(ctx: Context, opts: BodyFlags): Promise<void> {
  const body = await bodyFrom(opts.file, { messageId: opts.messageId, rating: opts.rating, content: opts.content, chatId: opts.chatId, chatflowid: opts.chatflowid });
  body.messageId = await requireValue('message-id', body.messageId as string | undefined, { prompt: () => askText('Message id') });
  body.rating = parseValue(
    RATING,
    await requireValue('rating', body.rating as string | undefined, {
      prompt: () => select('Rating', [{ name: 'thumbs up', value: 'THUMBS_UP' }, { name: 'thumbs down', value: 'THUMBS_DOWN' }]),
    }),
    '--rating',
  );
  body.messageId = await messageId(ctx, String(body.messageId), body.chatflowid as string | undefined);
  if (opts.dryRun) return printDryRun(ctx, routeRequest('createFeedback'), { body });
  await ctx.print(await (await ctx.client()).feedback.create(body as never), { single: true });
}

export async function update(ctx: Context, id: string, opts: BodyFlags): Promise<void> {
  const body = await bodyFrom(opts.file, { rating: opts.rating, content: opts.content });
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --rating, --content or --file');
  const client = await ctx.client();
  id = await idFrom(FEEDBACK, client, id, '<id>');
  if (opts.dryRun) return printDryRun(ctx, routeRequest('updateFeedback', id), { body });
  await ctx.print(await client.feedback.update(id, body), { single: true });
}

/**
 * A message id (free text on our service), or the start of one among --chatflowid's messages: the
 * only place one can be looked up. Without --chatflowid it goes as typed.
 */
async function messageId(ctx: Context, text: string, chatflowId: string | undefined): Promise<string> {
  if (isId(text) || !chatflowId) return text;
  return pick(messagesOf(chatflowId), await records(messagesOf(chatflowId), await ctx.client()), text).id;
}
