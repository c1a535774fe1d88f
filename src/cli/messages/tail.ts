// `chatflow messages tail` handler: the polling is ./polling.ts, the chat layout ../render/chat-view.ts.
import type { MessageListQuery } from '../../client/index.js';
import type { messages as group } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { messageOf } from '../base/errors.js';
import { messageQuery } from '../core/filters.js';
import { ChatView, fieldLine } from '../render/chat-view.js';
import { put } from '../render/records.js';
import { parseInterval, tailMessages } from './polling.js';
import { parseNumber, sayIfNoChatflow } from '../core/handler-common.js';


export async function tail(ctx: Context, chatflowId: string, opts: Flags<typeof group, 'tail'>): Promise<void> {
  const lines = parseNumber('--lines', opts.lines, { integer: true, min: 0, max: 100_000 }) ?? 20;
  const intervalMs = parseInterval(opts.interval ?? '2s');
  const filters = messageQuery(opts, ctx.out.zone);
  const query: MessageListQuery = { ...filters, feedback: filters.feedbackType !== undefined ? true : undefined };
  let format = ctx.out.format;
  // Piped, a never-ending list is one JSON object a line; json asked for (-o json, --json or the
  // profile's format) without --follow is an array, as every other list prints it.
  if (format === 'json' && (opts.follow || !ctx.out.chosen)) format = 'ndjson';
  const client = await ctx.client();

  const stop = new AbortController();
  const onSignal = () => {
    stop.abort();
    // A poll stuck on a server that does not answer must not keep Ctrl-C waiting.
    setTimeout(() => process.exit(0), 1500).unref();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A reader that went away (`| head`): stop quietly.
  const onStdoutError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') stop.abort();
  };
  process.stdout.on('error', onStdoutError);
  const every = opts.interval ?? '2s';
  // The latest messages, counted: none at all may mean a chatflow the server does not know.
  let seen = 0;
  const noneSeen = () => (seen === 0 ? sayIfNoChatflow(ctx, chatflowId) : Promise.resolve());
  const latest = tailMessages(client, chatflowId, query, {
    lines,
    follow: opts.follow === true,
    intervalMs,
    signal: stop.signal,
    onCaughtUp: () => {
      if (process.stderr.isTTY) ctx.out.note(`following ${chatflowId} every ${every}; Ctrl-C to stop`);
      // Following a typo would wait for ever, silently.
      noneSeen().catch(() => undefined);
    },
    onTransient: (err) => (err ? ctx.out.warn(`${messageOf(err, ctx.out.words)}; trying again every ${every}`) : ctx.out.note('reconnected')),
  });
  const messages = (async function* () {
    for await (const m of latest) {
      seen++;
      yield m;
    }
  })();
  try {
    if (format === 'table' && !ctx.flags.quiet) {
      const fields = ctx.flags.fields?.split(',').map((f) => f.trim()).filter(Boolean);
      const view = new ChatView({ width: ctx.out.columns, color: ctx.out.color });
      for await (const m of messages) await put(ctx.out.stdout, fields?.length ? `${fieldLine(m, fields)}\n` : view.render(m));
    } else {
      await ctx.print(messages, { format, columns: ['createdDate', 'role', 'sessionId', 'content', 'id'] });
    }
    if (!opts.follow && seen === 0) {
      if (format !== 'json') ctx.out.note('No messages found.');
      await noneSeen();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE' || stop.signal.aborted) return;
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stdout.off('error', onStdoutError);
  }
}
