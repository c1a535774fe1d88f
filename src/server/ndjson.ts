// A streamed ingest: a route whose body may be an array of records (schema/routes.ts) takes them
// as NDJSON too, one record a line, read and committed as the body arrives. The lines go in
// batches, each exactly what the array form of the same records would be: validated as that
// array, written by the route's handler in one transaction. A batch is written while the next is
// read and parsed, so the database never waits for the input (nor the input, beyond one batch,
// for the database). A failure ends the ingest there: the batches before it are written, nothing
// from the failing batch on is; the answer says which lines those are.
import { MAX_INGEST_BATCH_BYTES, MAX_INGEST_ITEMS } from '../schema/limits.js';
import type { RouteName } from '../schema/routes.js';
import { invalidAnswer, perform } from './answers.js';
import { parseJsonBody } from './body.js';
import { ServiceError } from './errors.js';
import { StoreError } from './store/errors.js';
import { routeTable } from './route-table.js';
import type { Store } from './store/types.js';
import { bodyValidator } from './routing.js';
import type { StreamedBody } from './streamed-body.js';

export const NDJSON_TYPE = 'application/x-ndjson';

/** The media type of a content-type header (no parameters, lower case). */
export const mediaType = (header: string | undefined) => (header ?? '').split(';')[0]!.trim().toLowerCase();

interface Batch {
  /** The stream's line number of the batch's first line (from 1). */
  first: number;
  /** The line number of each record. */
  lines: number[];
  records: unknown[];
}

/** `[i]` in a message of the array form (validation's, or the store's), as the line it is: `line 7: role must be…`. */
function asLine(message: string, batch: Batch): string {
  const m = /^\[(\d+)\]\.? ?/.exec(message);
  const line = m && batch.lines[Number(m[1])];
  return !m || line === undefined ? message : `line ${line}: ${message.slice(m[0].length)}`;
}

/** One line's record, parsed as a body is (body.ts: the same refusals), its errors naming the line. */
function parseLine(raw: Buffer, line: number): unknown {
  try {
    return parseJsonBody(raw);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    // (`body is not valid JSON` as `line 4: not valid JSON`.)
    throw new ServiceError(err.statusCode, `line ${line}: ${err.message.replace(/^body (is )?/, '')}`);
  }
}

const isBlank = (raw: Buffer) => raw.every((c) => c === 0x20 || c === 0x09 || c === 0x0d);

/**
 * A stream's records in batches of at most MAX_INGEST_ITEMS lines and MAX_INGEST_BATCH_BYTES
 * bytes; `first` is the first line of the batch being read. Blank lines are skipped (and
 * counted). A line over `maxLine` is refused as soon as it is (never held whole); a stream that
 * brings nothing for `stallMs` too. A last line without its newline counts only once the body has
 * ended properly: a stream cut on its way fails the read (the transport's error), and what was not
 * committed by then never is.
 */
class LineReader {
  first = 1;
  private line = 0;
  private batch: Batch = { first: 1, lines: [], records: [] };
  private bytes = 0;

  constructor(private readonly body: StreamedBody) {}

  private take(raw: Buffer): Batch | undefined {
    const line = ++this.line;
    if (raw.length > this.body.maxLine) throw this.tooLong(line);
    if (isBlank(raw)) return undefined;
    const { batch } = this;
    batch.records.push(parseLine(raw, line));
    batch.lines.push(line);
    this.bytes += raw.length + 1;
    if (batch.records.length < MAX_INGEST_ITEMS && this.bytes < MAX_INGEST_BATCH_BYTES) return undefined;
    this.first = line + 1;
    this.batch = { first: this.first, lines: [], records: [] };
    this.bytes = 0;
    return batch;
  }

  private tooLong(line: number) {
    return new ServiceError(413, `line ${line}: longer than ${this.body.maxLine} bytes, the most a line may hold`);
  }

  async *batches(): AsyncGenerator<Batch> {
    const { maxLine, stallMs } = this.body;
    const iterator = this.body.chunks[Symbol.asyncIterator]();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (;;) {
      const next = await nextChunk(iterator, stallMs, () => this.line + 1);
      if (next.done) break;
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      let start = 0;
      let nl: number;
      while ((nl = chunk.indexOf(0x0a, start)) >= 0) {
        const piece = chunk.subarray(start, nl);
        let raw = pendingBytes ? Buffer.concat([...pending, piece], pendingBytes + piece.length) : piece;
        pending = [];
        pendingBytes = 0;
        if (raw.length > 0 && raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, -1);
        start = nl + 1;
        const full = this.take(raw);
        if (full) yield full;
      }
      if (start < chunk.length) {
        // (A copy: a transport may reuse a chunk's memory.)
        const rest = Buffer.from(chunk.subarray(start));
        pending.push(rest);
        pendingBytes += rest.length;
        // (One byte more: a line's carriage return.)
        if (pendingBytes > maxLine + 1) throw this.tooLong(this.line + 1);
      }
    }
    if (pendingBytes) this.take(Buffer.concat(pending, pendingBytes));
    if (this.batch.records.length) yield this.batch;
  }
}

/** The next chunk, or a 408 when none comes within `stallMs`. */
async function nextChunk(iterator: AsyncIterator<Uint8Array>, stallMs: number | undefined, at: () => number): Promise<IteratorResult<Uint8Array>> {
  if (stallMs === undefined) return iterator.next();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ServiceError(408, `the body brought nothing for ${Math.round(stallMs / 1000)}s: the ingest stopped at line ${at()}`)), stallMs);
  });
  try {
    return await Promise.race([iterator.next(), stalled]);
  } finally {
    clearTimeout(timer);
  }
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
  const validate = bodyValidator(name);
  const reader = new LineReader(input.body);
  const batches = reader.batches();
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
      let result: IteratorResult<Batch>;
      try {
        result = await batches.next();
      } catch (err) {
        // (The batch before is written, or refused, first: it comes first in the answer.)
        await settle();
        throw failure(err, undefined, reader.first, affected);
      }
      if (result.done) {
        await settle();
        break;
      }
      const batch = result.value;
      const valid = validate(batch.records);
      const errors = validate.errors ?? [];
      await settle();
      if (!valid) {
        const [status, message] = invalidAnswer('body', errors, routeTable[name].invalidStatus);
        throw failure(new ServiceError(status, message), batch, batch.first, affected);
      }
      const done = perform(name, { ...input, body: batch.records } as never).then((outcome) => (outcome as { json: { affected: number } }).json.affected);
      // (Awaited in settle; a rejection meanwhile is not unhandled.)
      done.catch(() => undefined);
      writing = { batch, done };
    }
  } finally {
    // (A failure while a batch is written: the answer waits for its end, whatever it did.)
    if (writing) await writing.done.catch(() => undefined);
    await batches.return(undefined).catch(() => undefined);
  }
  return { affected };
}
