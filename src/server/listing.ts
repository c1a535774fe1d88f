// Sends a list as a JSON array, one element a line, as the rows arrive: a million rows never
// sit in memory, and the client can parse the array line by line while it downloads.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Listing } from './store/types.js';

async function* jsonLines<R>(rows: AsyncIterable<R> | Iterable<R>, text: (row: R) => string): AsyncGenerator<string> {
  let first = true;
  let chunk = '[';
  for await (const row of rows) {
    chunk += (first ? '\n' : ',\n') + text(row);
    first = false;
    // Batch small rows into larger writes; a write per row costs more than the rows themselves.
    if (chunk.length >= 16_384) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}${first ? ']' : '\n]'}`;
}

export function sendListing(reply: FastifyReply, listing: Listing<unknown>) {
  if (listing.total !== undefined) reply.header('x-total-count', String(listing.total));
  const lines = listing.texts ? jsonLines(listing.texts, (t) => t) : jsonLines(listing.rows, (row) => JSON.stringify(row));
  return reply.type('application/json; charset=utf-8').send(Readable.from(lines));
}
