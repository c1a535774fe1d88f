// `chatflow export` handler: every record of the chosen resources as JSON lines (the format is in
// ./lines.ts), streamed from the server and written as it arrives, with backpressure: a
// million messages never sit in memory.
import { rename, unlink } from 'node:fs/promises';
import type { ChatflowClient, ChatflowDefinition } from '../../client/index.js';
import type { exportCommand } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { credentialsOf } from '../chatflows/promote.js';
import { withReferences } from '../chatflows/files.js';
import { EXIT, UserError, messageOf } from '../base/errors.js';
import { partialOf, privateStream } from '../base/private-files.js';
import { createProgress, progressWanted, type Progress } from '../base/progress.js';
import { ChunkWriter, type Out } from '../render/records.js';
import { groupDigits, plural } from '../render/text.js';
import { PER_CHATFLOW, TAGS, parseResources, type Resource } from './lines.js';


/** The end of an export line after its record. */
const LINE_END = Buffer.from('}\n');

const FLOWISE_NOTE =
  "note: this server is not the chatflow service (a Flowise server?): each chatflow's messages are read a date window at a time; " +
  'the messages of deleted chatflows cannot be reached; ' +
  'credentials (chatflows name theirs by name and kind), tools, document stores and API keys are not part of this interface and are not exported.';

/** `only`: the chatflows --chatflow names (of the chatflows' definitions). */
type Source = { resource: Resource; chatflowId?: string; only?: ReadonlySet<string> };

async function* serialised(values: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<string[]> {
  for await (const value of values) yield [JSON.stringify(value)];
}

/** The chatflows' definitions, credentials by name and kind where the server has credentials (Flowise). */
async function definitions(client: ChatflowClient, only: ReadonlySet<string> | undefined, warn: (msg: string) => void): Promise<ChatflowDefinition[]> {
  const defs = (await client.chatflows.definitions()).filter((d) => !only || only.has(d.id));
  let credentials;
  try {
    credentials = await credentialsOf(client, client.serverUrl);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    warn(`${messageOf(err)}; chatflows are exported with their credential ids`);
  }
  if (!credentials) return defs;
  return defs.map((d) => withReferences(d, credentials, (id) => warn(`chatflow ${d.name}: credential ${id} is not among the server's credentials; exported as an id`)));
}

/** A source's records as JSON texts, in chunks; messages (the bulk) copied as received, not parsed again. */
function records(client: ChatflowClient, { resource, chatflowId, only }: Source, warn: (msg: string) => void): AsyncIterable<string[]> {
  switch (resource) {
    case 'chatflows':
      return (async function* () {
        yield* serialised(await definitions(client, only, warn));
      })();
    case 'variables':
      return serialised(client.variables.stream());
    case 'assistants':
      return serialised(client.assistants.stream());
    case 'messages':
      return client.messages.streamTexts(chatflowId!, {});
    case 'feedback':
      return serialised(client.feedback.stream(chatflowId!));
    case 'upsert-history':
      return serialised(client.upsertHistory.stream(chatflowId!));
  }
}

/** How many records a source holds, from one-row pages (our service answers X-Total-Count). */
async function countOf(client: ChatflowClient, { resource, chatflowId, only }: Source): Promise<number | undefined> {
  const page = { page: 1, limit: 1 };
  switch (resource) {
    case 'chatflows':
      return (await client.chatflows.definitions()).filter((d) => !only || only.has(d.id)).length;
    case 'variables':
      return (await client.variables.list(page)).total;
    case 'assistants':
      return (await client.assistants.list(page)).total;
    case 'messages': {
      // Where a page costs only what it holds (Flowise), its total is only a lower bound.
      const { total, atLeast } = await client.messages.list(chatflowId!, page);
      return atLeast ? undefined : total;
    }
    case 'feedback':
      return (await client.feedback.list(chatflowId!, page)).total;
    case 'upsert-history':
      return (await client.upsertHistory.list(chatflowId!, page)).total;
  }
}

async function totalOf(client: ChatflowClient, sources: Source[]): Promise<number | undefined> {
  let total = 0;
  for (const source of sources) {
    const n = await countOf(client, source);
    if (n === undefined) return undefined;
    total += n;
  }
  return total;
}

async function writeAll(client: ChatflowClient, sources: Source[], writer: ChunkWriter, progress: Progress, warn: (msg: string) => void, redact?: (text: string) => string) {
  const counts = new Map<Resource, number>();
  for (const source of sources) {
    // The constant part of each line, built once per list.
    const head = `{"resource":${JSON.stringify(TAGS[source.resource])}${
      source.chatflowId === undefined ? '' : `,"chatflowid":${JSON.stringify(source.chatflowId)}`
    },"data":`;
    let n = 0;
    if (source.resource === 'messages' && !redact) {
      // The bulk: the server's lines copied as bytes into export lines (see HttpCore.streamFramed).
      for await (const { bytes, count } of client.messages.streamFramed(source.chatflowId!, {}, Buffer.from(head), LINE_END)) {
        if (count > 0) await writer.writeBytes(bytes);
        n += count;
        progress.add(count);
      }
    } else {
      for await (const texts of records(client, source, (msg) => progress.interrupt(() => warn(msg)))) {
        let lines = '';
        for (const text of texts) lines += `${head}${redact ? redact(text) : text}}\n`;
        await writer.write(lines);
        n += texts.length;
        progress.add(texts.length);
      }
    }
    counts.set(source.resource, (counts.get(source.resource) ?? 0) + n);
  }
  await writer.flush();
  return counts;
}

/**
 * Opens the destination: stdout, or a temporary file (0600: it holds messages) renamed into place
 * once complete. `note` says on stderr what an interrupted export left.
 */
async function destination(file: string | undefined, stdout: Out, note: (msg: string) => void) {
  if (file === undefined || file === '-') {
    return { out: stdout, shown: 'stdout', finish: async () => {}, abandon: async () => {} };
  }
  const partial = partialOf(file);
  // Its buffer takes 4 MB before the export waits: with the stream's default 16 KB, each chunk
  // received (64 KB) waited to be written before the next was read, one write each.
  const stream = await privateStream(partial, 4 << 20);
  const closed = new Promise<void>((resolve, reject) => {
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  // Ctrl-C must not leave the partial file behind, and says so: a file already at `file` is as it was.
  const onSignal = () => {
    stream.destroy();
    note(`export interrupted: nothing was written to ${file}`);
    void unlink(partial).finally(() => process.exit(EXIT.interrupted));
  };
  process.once('SIGINT', onSignal);
  return {
    out: stream as unknown as Out,
    shown: file,
    async finish() {
      stream.end();
      await closed;
      process.removeListener('SIGINT', onSignal);
      await rename(partial, file);
    },
    async abandon() {
      process.removeListener('SIGINT', onSignal);
      stream.destroy();
      await closed.catch(() => undefined);
      await unlink(partial).catch(() => undefined);
    },
  };
}

export async function exportAll(ctx: Context, opts: Flags<typeof exportCommand>): Promise<void> {
  const resources = parseResources(opts.resources);
  const client = await ctx.client();
  const kind = await client.server();

  let chatflows: string[] = [];
  const perChatflow = resources.some((r) => PER_CHATFLOW.has(r));
  if (perChatflow) {
    chatflows = opts.chatflow?.length ? [...new Set(opts.chatflow)] : (await client.chatflows.list()).map((c) => c.id);
  }
  const sources: Source[] = [
    ...resources
      .filter((r) => !PER_CHATFLOW.has(r))
      .map((resource) => ({ resource, ...(resource === 'chatflows' && opts.chatflow?.length ? { only: new Set(opts.chatflow) } : {}) })),
    ...chatflows.flatMap((chatflowId) =>
      resources.filter((r) => PER_CHATFLOW.has(r)).map((resource) => ({ resource, chatflowId })),
    ),
  ];

  const progress = createProgress({ label: 'export', unit: 'records', flag: opts.progress });
  // Counting costs one small request a list: only for a bar, and only where pages carry totals
  // (Flowise answers a whole list to a page request).
  if (kind === 'chatflow' && progressWanted(opts.progress)) progress.setTotal(await totalOf(client, sources));

  const started = performance.now();
  const dest = await destination(opts.out, ctx.out.stdout, (msg) => {
    progress.done();
    ctx.out.note(msg);
  });
  let counts: Map<Resource, number>;
  try {
    counts = await writeAll(client, sources, new ChunkWriter(dest.out), progress, (msg) => ctx.out.warn(msg), opts.redact ? (await import('../base/redact.js')).redactJson : undefined);
    await dest.finish();
  } catch (err) {
    await dest.abandon();
    throw err;
  } finally {
    progress.done();
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const detail = resources.map((r) => `${groupDigits(counts.get(r) ?? 0)} ${r}`).join(', ');
  const secs = (performance.now() - started) / 1000;
  ctx.out.note(
    `exported ${plural(total, 'record')} (${detail})${perChatflow ? ` of ${plural(chatflows.length, 'chatflow')}` : ''} to ${dest.shown} in ${secs.toFixed(1)}s`,
  );
  // After the work, not before: a failed export says one thing, its error.
  if (kind === 'flowise') ctx.out.note(`chatflow: ${FLOWISE_NOTE}`);
}
