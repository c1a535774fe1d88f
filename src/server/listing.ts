// Sends a list as a JSON array, one element a line, as the rows arrive: a million rows never
// sit in memory, and the client can parse the array line by line while it downloads.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { JSON_TYPE } from './answers.js';
import { ROW_SEPARATOR, type JoinedRows, type Listing } from './store/types.js';

/** How far a list got: rows handed to the socket, and the failure that cut it short, if one did. */
export interface ListingProgress {
  rows: number;
  failure?: Error;
}
const progress = new WeakMap<FastifyReply, ListingProgress>();
/** The progress of the list this reply sends (undefined when it sends none). */
export const listingProgress = (reply: FastifyReply) => progress.get(reply);

/** A chunk of the answer is written once it holds this much: a write per row costs more than the rows. */
const CHUNK = 16_384;
const OPEN = '[\n';
const CLOSE = '\n]';
const OPEN_BYTES = Buffer.from(OPEN);
const CLOSE_BYTES = Buffer.from(CLOSE);

async function* jsonLines<R>(
  batches: AsyncIterable<readonly R[] | JoinedRows> | Iterable<readonly R[]>,
  text: (row: R) => string,
  sent: ListingProgress,
): AsyncGenerator<string | Buffer> {
  let first = true;
  let chunk = '';
  let pending = 0;
  /**
   * A first batch of joined rows smaller than a chunk: the whole answer of a small list
   * (variables, a session's messages) is its bytes between brackets, sent as they are rather than
   * decoded to text, joined and encoded again for the socket. Decoded only should more rows follow.
   */
  let held: Buffer | undefined;
  for await (const batch of batches) {
    if (held) {
      chunk = OPEN + held.toString();
      held = undefined;
    }
    if (!Array.isArray(batch)) {
      // Rows already joined, as bytes: sent as they are, after what came before them (a small
      // list's few as text, so that it still goes out as one piece with its length).
      const { count, joined } = batch as JoinedRows;
      if (count === 0) continue;
      if (first && joined.length === 1 && joined[0]!.length < CHUNK) {
        held = joined[0];
        first = false;
        pending += count;
        continue;
      }
      chunk += first ? OPEN : ROW_SEPARATOR;
      first = false;
      pending += count;
      if (joined.length === 1 && joined[0]!.length < CHUNK) {
        chunk += joined[0]!.toString();
        continue;
      }
      yield chunk;
      yield* joined;
      sent.rows += pending;
      pending = 0;
      chunk = '';
      continue;
    }
    for (const row of batch as readonly R[]) {
      chunk += (first ? OPEN : ROW_SEPARATOR) + text(row);
      first = false;
      pending++;
      // Batch small rows into larger writes; a write per row costs more than the rows themselves.
      if (chunk.length >= CHUNK) {
        yield chunk;
        sent.rows += pending;
        pending = 0;
        chunk = '';
      }
    }
  }
  yield held ? Buffer.concat([OPEN_BYTES, held, CLOSE_BYTES]) : first ? '[]' : chunk + CLOSE;
  sent.rows += pending;
}

/**
 * A list's answer body: a list that fits in one chunk (most lists: variables, assistants, a
 * session's messages) is one string or buffer; a longer one a stream. Either way the first rows are read
 * before this answers, so that a failing query still gets a proper error answer (it throws).
 * `sent` counts the rows handed on, and keeps the failure that cut a streamed one short.
 */
async function listingBody(listing: Listing<unknown>, sent: ListingProgress): Promise<string | Buffer | Readable> {
  const chunks = await listingChunks(listing, sent);
  // Two chunks read ahead, not Readable.from's 16: a PostgreSQL list's batch of messages comes in
  // buffers of some 4 MB (engine.ts, store/postgres/copy-out-json.ts), and a slow reader's answer would hold eight.
  return typeof chunks === 'string' || Buffer.isBuffer(chunks) ? chunks : Readable.from(chunks, { highWaterMark: 2 });
}

/** listingBody's text, or its chunks as they come (server/in-process.ts reads them without a stream). */
export async function listingChunks(listing: Listing<unknown>, sent: ListingProgress): Promise<string | Buffer | AsyncGenerator<string | Buffer>> {
  const lines = listing.texts ? jsonLines<string>(listing.texts, (t) => t, sent) : jsonLines(listing.rows, (row) => JSON.stringify(row), sent);
  const first = await lines.next();
  if (first.done) return '[]';
  const second = await lines.next();
  if (second.done) return first.value;
  return (async function* () {
    try {
      yield first.value;
      yield second.value;
      yield* lines;
    } catch (err) {
      // The status is sent: the answer can only be cut short, and the log must say why.
      sent.failure = err as Error;
      throw err;
    }
  })();
}

/** fastify's answer of a list (x-total-count when a page was asked for). */
export async function sendListing(reply: FastifyReply, listing: Listing<unknown>) {
  if (listing.total !== undefined) reply.header('x-total-count', String(listing.total));
  const sent: ListingProgress = { rows: 0 };
  progress.set(reply, sent);
  reply.type(JSON_TYPE);
  return reply.send(await listingBody(listing, sent));
}
