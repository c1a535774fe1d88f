// Sends a list as a JSON array, one element a line, as the rows arrive: a million rows never
// sit in memory, and the client can parse the array line by line while it downloads.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Listing } from './store/types.js';

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
const OPEN = Buffer.from('[\n');
const NEXT = Buffer.from(',\n');
const CLOSE = Buffer.from('\n]');

async function* jsonLines<R>(
  batches: AsyncIterable<readonly R[]> | Iterable<readonly R[]>,
  text: (row: R) => string | Buffer,
  sent: ListingProgress,
): AsyncGenerator<string | Buffer> {
  let first = true;
  // Rows given as text are joined into a string; rows given as bytes are gathered and copied
  // into one buffer (never decoded).
  let chunk = '';
  let bytes: Buffer[] = [];
  let size = 0;
  let pending = 0;
  const take = (): string | Buffer => {
    const out = bytes.length > 0 ? Buffer.concat(bytes, size) : chunk;
    chunk = '';
    bytes = [];
    size = 0;
    return out;
  };
  for await (const batch of batches) {
    for (const row of batch) {
      const t = text(row);
      if (typeof t === 'string') {
        chunk += (first ? '[\n' : ',\n') + t;
        size = chunk.length;
      } else {
        bytes.push(first ? OPEN : NEXT, t);
        size += 2 + t.length;
      }
      first = false;
      pending++;
      if (size >= CHUNK) {
        yield take();
        sent.rows += pending;
        pending = 0;
      }
    }
  }
  if (first) chunk = '[]';
  else if (bytes.length > 0) {
    bytes.push(CLOSE);
    size += CLOSE.length;
  } else chunk += '\n]';
  yield take();
  sent.rows += pending;
}

/**
 * A list that fits in one chunk (most lists: variables, assistants, a session's messages) goes
 * out as one string with its length; a longer one is streamed. Either way the first rows are read
 * before the status is sent, so that a failing query still gets a proper error answer.
 */
export async function sendListing(reply: FastifyReply, listing: Listing<unknown>) {
  if (listing.total !== undefined) reply.header('x-total-count', String(listing.total));
  const sent: ListingProgress = { rows: 0 };
  progress.set(reply, sent);
  const lines = listing.texts ? jsonLines<string | Buffer>(listing.texts, (t) => t, sent) : jsonLines(listing.rows, (row) => JSON.stringify(row), sent);
  reply.type('application/json; charset=utf-8');
  const first = await lines.next();
  if (first.done) return reply.send('[]');
  const second = await lines.next();
  if (second.done) return reply.send(first.value);
  return reply.send(
    Readable.from(
      (async function* () {
        try {
          yield first.value;
          yield second.value;
          yield* lines;
        } catch (err) {
          // The status is sent: the answer can only be cut short, and the log must say why.
          sent.failure = err as Error;
          throw err;
        }
      })(),
    ),
  );
}
