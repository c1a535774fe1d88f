// A streamed ingest: a route whose body may be an array of records (schema/routes.ts) takes them
// as NDJSON too, one record a line, read and committed as the body arrives. The lines go in
// batches, each exactly what the array form of the same records would be: validated as that
// array, written by the route's handler in one transaction (or, for a route with a row form,
// ingest-rows.ts, as the rows its store would make of them, made on the parsing thread). The
// lines are parsed and checked on a thread of their own (ndjson-thread.ts) while the service's
// thread writes the batch before: the database never waits for the input (nor the input, beyond
// two batches, for the database). A failure ends the ingest there: the batches before it are
// written, nothing from the failing batch on is; the answer says which lines those are.
import type { RouteName } from '../schema/routes.js';
import { perform } from './answers.js';
import { ServiceError } from './errors.js';
import { ROW_FORMS } from './ingest-rows.js';
import { recordsOf, type Batch } from './ndjson-lines.js';
import { ParsingThread } from './ndjson-thread.js';
import { StoreError } from './store/errors.js';
import type { Store } from './store/types.js';
import type { StreamedBody } from './streamed-body.js';

export const NDJSON_TYPE = 'application/x-ndjson';

/** The media type of a content-type header (no parameters, lower case). */
export const mediaType = (header: string | undefined) => (header ?? '').split(';')[0]!.trim().toLowerCase();

/** `[i]` in a message of the array form (validation's, or the store's), as the line it is: `line 7: role must be…`. */
function asLine(message: string, batch: Batch): string {
  const m = /^\[(\d+)\]\.? ?/.exec(message);
  const line = m && batch.lines[Number(m[1])];
  return !m || line === undefined ? message : `line ${line}: ${message.slice(m[0].length)}`;
}

/** What a stream that failed in the batch from line `first` on has written (`affected`: the new records). */
function written(first: number, affected: number): string {
  if (first === 1) return 'nothing was written';
  const before = first === 2 ? 'line 1 was' : `lines 1–${first - 1} were`;
  return `${before} written (${affected} new), nothing from line ${first} on`;
}

/** An error of the batch from line `first` on, its message naming the line (not `[i]`) and what was written. */
function failure(err: unknown, batch: Batch | undefined, first: number, affected: number): unknown {
  if (!(err instanceof Error) || !(err instanceof ServiceError || err instanceof StoreError)) return err;
  err.message = `${batch ? asLine(err.message, batch) : err.message}; ${written(first, affected)}`;
  return err;
}

/**
 * A streamed ingest on the route `name`: each batch validated as the array form's body and written
 * by the route's handler (one transaction each), the next batch read and parsed meanwhile.
 * Answers the number of new records, as the array form does; a failure has the array form's
 * status, its message naming the line and what was written.
 */
export async function ingestStreamed(
  name: RouteName,
  input: { params: unknown; query: unknown; body: StreamedBody; store: Store },
): Promise<{ affected: number }> {
  const parsing = new ParsingThread(name, input.params, input.body);
  const form = ROW_FORMS[name];
  let affected = 0;
  /** The batch being written, and its write. */
  let writing: { batch: Batch; done: Promise<number> } | undefined;
  const settle = async () => {
    if (!writing) return;
    const { batch, done } = writing;
    writing = undefined;
    try {
      affected += await done;
    } catch (err) {
      throw failure(err, batch, batch.first, affected);
    }
  };
  try {
    for (;;) {
      let batch: Batch | undefined;
      try {
        batch = await parsing.next();
      } catch (err) {
        // (The batch before is written, or refused, first: it comes first in the answer.)
        await settle();
        throw failure(err, undefined, parsing.first, affected);
      }
      await settle();
      if (!batch) break;
      if (batch.invalid) throw failure(new ServiceError(...batch.invalid), batch, batch.first, affected);
      const done = form
        ? form.write(input.store, recordsOf(batch) as unknown[][])
        : perform(name, { ...input, body: recordsOf(batch) } as never).then((outcome) => (outcome as { json: { affected: number } }).json.affected);
      // (Awaited in settle; a rejection meanwhile is not unhandled.)
      done.catch(() => undefined);
      writing = { batch, done };
    }
  } finally {
    // (A failure while a batch is written: the answer waits for its end, whatever it did.)
    if (writing) await writing.done.catch(() => undefined);
    await parsing.close();
  }
  return { affected };
}
