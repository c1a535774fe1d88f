// A streamed ingest's lines (ndjson.ts) as batches of records, on the parsing thread
// (ndjson-worker.ts): split as the chunks come, each line parsed as a body is (body.ts: the same
// refusals, naming the line) and checked by the route's body validator as an array of that one
// record (the array a batch stands for has no rule across its records). A batch's records travel
// serialized (v8), a part at a time, and become objects only when the batch is written
// (`recordsOf`): a batch waiting its turn is one buffer, outside the JavaScript heap, and this
// thread holds one part's objects at most. Nothing here touches the store.
import { deserialize, serialize } from 'node:v8';
import { MAX_INGEST_BATCH_BYTES, MAX_INGEST_ITEMS } from '../schema/limits.js';
import { parseJsonBody } from './body.js';
import { ServiceError } from './errors.js';
import { now } from './store/dates.js';

export interface Batch {
  /** The stream's line number of the batch's first line (from 1). */
  first: number;
  /** The line number of each record. */
  lines: Uint32Array;
  /** The records, serialized a part at a time (see recordsOf), the parts one after the other. */
  records: Uint8Array;
  /** The bytes of each part. */
  parts: Uint32Array;
  /**
   * The status and message of the record that broke the body's schema (`[i]`: the batch's record
   * i, its last). The batch ends there.
   */
  invalid?: [status: number, message: string];
}

/**
 * Records serialized together, as an array: fewer and larger reads than one at a time. Each part
 * by a serializer of its own, which holds every object it has written until it is done.
 */
const PART = 1000;

/** A batch's records, as the array its lines stand for (or their rows: see LineSplitter's `shape`). */
export function recordsOf(batch: Batch): unknown[] {
  const records: unknown[] = [];
  let at = 0;
  for (const size of batch.parts) {
    for (const record of deserialize(batch.records.subarray(at, at + size)) as unknown[]) records.push(record);
    at += size;
  }
  return records;
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
 * bytes, given its chunks one by one (`push`), then its end (`end`). `first` is the first line
 * of the batch being read, `line` the last line read. Blank lines are skipped (and counted). A
 * line over `maxLine` is refused as soon as it is (never held whole). `check` answers why an
 * array of records breaks the body's schema, or nothing; the first record that does ends the
 * stream with its batch (`invalid`).
 */
export class LineSplitter {
  first = 1;
  line = 0;
  private lines: number[] = [];
  private readonly part: unknown[] = [];
  private readonly parts: Buffer[] = [];
  private bytes = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private refused = false;

  /** The time of the batch being read (its first record's), for `shape`. */
  private at: string | undefined;

  constructor(
    private readonly maxLine: number,
    private readonly check: (records: unknown[]) => Batch['invalid'],
    /** What a checked record is sent as (the record itself when none): the store's row (ingest-rows.ts). */
    private readonly shape?: (record: unknown, at: string) => unknown,
  ) {}

  private take(raw: Buffer, full: Batch[]): void {
    if (this.refused) return;
    const line = ++this.line;
    if (raw.length > this.maxLine) throw this.tooLong(line);
    if (isBlank(raw)) return;
    const record = parseLine(raw, line);
    this.lines.push(line);
    const invalid = this.check([record]);
    this.part.push(invalid || !this.shape ? record : this.shape(record, (this.at ??= now())));
    if (invalid) {
      // (The message's `[0]` is the record's place in the batch.)
      const [status, message] = invalid;
      const at = `[${this.lines.length - 1}]`;
      this.refused = true;
      full.push({ ...this.batch(), invalid: [status, message.replace(/^\[0\]/, at)] });
      return;
    }
    if (this.part.length === PART) this.writePart();
    this.bytes += raw.length + 1;
    if (this.lines.length < MAX_INGEST_ITEMS && this.bytes < MAX_INGEST_BATCH_BYTES) return;
    full.push(this.batch());
    this.first = line + 1;
  }

  // (`part` and `parts` are emptied, not replaced: V8 soon allocates an array assigned again and
  // again to a long-lived object in the old generation, and what it holds then outlives every
  // minor collection until a major one: the records, some 200 MB of garbage at 500,000 messages.)
  private writePart() {
    if (this.part.length) this.parts.push(serialize(this.part));
    this.part.length = 0;
  }

  /** The batch read so far (and a new one begun). */
  private batch(): Batch {
    this.writePart();
    const sizes = Uint32Array.from(this.parts, (p) => p.length);
    // (Memory of its own, to be handed to another thread: never a slice of Buffer's shared pool.)
    const records = new Uint8Array(sizes.reduce((sum, n) => sum + n, 0));
    let at = 0;
    for (const part of this.parts) {
      records.set(part, at);
      at += part.length;
    }
    this.parts.length = 0;
    const batch = { first: this.first, lines: Uint32Array.from(this.lines), records, parts: sizes };
    this.lines = [];
    this.bytes = 0;
    this.at = undefined;
    return batch;
  }

  private tooLong(line: number) {
    return new ServiceError(413, `line ${line}: longer than ${this.maxLine} bytes, the most a line may hold`);
  }

  /** The batches a chunk completes. The chunk's memory is not kept past the call. */
  push(chunk: Buffer): Batch[] {
    const full: Batch[] = [];
    let start = 0;
    let nl: number;
    while (!this.refused && (nl = chunk.indexOf(0x0a, start)) >= 0) {
      const piece = chunk.subarray(start, nl);
      let raw = this.pendingBytes ? Buffer.concat([...this.pending, piece], this.pendingBytes + piece.length) : piece;
      this.pending = [];
      this.pendingBytes = 0;
      if (raw.length > 0 && raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, -1);
      start = nl + 1;
      this.take(raw, full);
    }
    if (!this.refused && start < chunk.length) {
      const rest = Buffer.from(chunk.subarray(start));
      this.pending.push(rest);
      this.pendingBytes += rest.length;
      // (One byte more: a line's carriage return.)
      if (this.pendingBytes > this.maxLine + 1) throw this.tooLong(this.line + 1);
    }
    return full;
  }

  /**
   * The batches left once the body has ended properly: a last line without its newline counts
   * only then (a stream cut on its way never gets here).
   */
  end(): Batch[] {
    const full: Batch[] = [];
    if (this.refused) return full;
    if (this.pendingBytes) this.take(Buffer.concat(this.pending, this.pendingBytes), full);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.lines.length) full.push(this.batch());
    return full;
  }
}
