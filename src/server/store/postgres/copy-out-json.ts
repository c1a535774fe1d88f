// COPY … TO STDOUT (FORMAT binary) of a message's columns, written as the JSON JSON.stringify
// gives of the row, byte by byte from pg's read buffer (docs/performance.md, Export).
import type { JsonColumn } from '../engine.js';
import { ROW_SEPARATOR, type JoinedRows } from '../types.js';
import { Submitted } from './submitted.js';

const SEPARATOR = Buffer.from(ROW_SEPARATOR);

/** PostgreSQL's epoch of a binary timestamptz (microseconds from 2000), in milliseconds from 1970. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const DAY_MS = 86_400_000;
/** A binary COPY's header: its signature, flags and the length of an extension that follows. */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const COPY_HEADER = COPY_SIGNATURE.length + 8;
/** JSON.stringify's escape of each byte it escapes (below 0x20, `"` and `\`); empty for the others. */
const ESCAPES: Uint8Array[] = Array.from({ length: 256 }, (_, c) =>
  c < 0x20 || c === 0x22 || c === 0x5c ? Buffer.from(JSON.stringify(String.fromCharCode(c)).slice(1, -1)) : new Uint8Array(0),
);
/** 1 for a byte JSON.stringify escapes. */
const ESCAPED = Uint8Array.from(ESCAPES, (e) => (e.length > 0 ? 1 : 0));

/** Writes `bytes` at `at`; answers the end. (A loop: Buffer#copy costs more than a few bytes.) */
function put(out: Buffer, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) out[at + i] = bytes[i]!;
  return at + bytes.length;
}

/** Copies data[from, to) to `at`; answers the end. (A loop for a few bytes, Buffer#copy for more.) */
function copyRun(data: Buffer, from: number, to: number, out: Buffer, at: number): number {
  if (to - from > 64) return at + data.copy(out, at, from, to);
  for (let k = from; k < to; k++) out[at++] = data[k]!;
  return at;
}

/** The big-endian int32 at `at` (Buffer#readInt32BE checks its argument first). */
const int32 = (data: Buffer, at: number) => (data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!;

/** Writes `n` (0–99) as two digits at `at`. */
function two(out: Buffer, at: number, n: number): void {
  const tens = (n / 10) | 0;
  out[at] = 0x30 + tens;
  out[at + 1] = 0x30 + n - tens * 10;
}

/**
 * Writes the date part of an instant as toISOString does, quoted (`"2025-01-02T`): from the days
 * since 1970 to the civil date (H. Hinnant's days_from_civil, inverted), without a Date object or
 * a string. Answers false, writing nothing, for a year outside 0–9999.
 */
function isoDay(out: Buffer, at: number, days: number): boolean {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return false;
  out[at] = 0x22;
  two(out, at + 1, Math.floor(year / 100));
  two(out, at + 3, year % 100);
  out[at + 5] = 0x2d;
  two(out, at + 6, month);
  out[at + 8] = 0x2d;
  two(out, at + 9, day);
  out[at + 11] = 0x54;
  return true;
}
/** `"YYYY-MM-DDT`: the part of a date isoDay writes. */
const DAY_BYTES = 12;

/** Copies all of `bytes` to `at` in `out` (TypedArray#set; Buffer#copy makes a view first); answers how many. */
function copyAll(bytes: Uint8Array, out: Buffer, at: number): number {
  out.set(bytes, at);
  return bytes.length;
}

/** What CopyOutJson writes around the values of a row of `columns`, made once for them. */
interface RowShape {
  /** Each column's key: `{"key":` or `,"key":`. */
  heads: Buffer[];
  /** From each column on, its key and null, then as many of the next ones' as there are: `,"a":null,"b":null`. */
  nulls: Buffer[][];
  /** The most a row's JSON takes beyond 6 bytes for each byte of its values (a text's every byte may become `\u001f`). */
  fixed: number;
}
const SHAPES = new WeakMap<readonly JsonColumn[], RowShape>();
function rowShape(columns: readonly JsonColumn[]): RowShape {
  let shape = SHAPES.get(columns);
  if (!shape) {
    const heads = columns.map((c, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(c.key)}:`));
    const nulled = heads.map((head) => Buffer.concat([head, Buffer.from('null')]));
    const nulls = nulled.map((_, i) => nulled.slice(i).map((__, n) => Buffer.concat(nulled.slice(i, i + n + 1))));
    shape = { heads, nulls, fixed: nulled.reduce((n, b) => n + b.length + 32, SEPARATOR.length + 1) };
    SHAPES.set(columns, shape);
  }
  return shape;
}

/**
 * COPY … TO STDOUT (FORMAT binary) of a row's columns, each row written as the JSON object
 * JSON.stringify gives (`columns` name its keys, in order, and how each value is written), the
 * rows joined by ROW_SEPARATOR. PostgreSQL itself writing the JSON (row_to_json, reparsing each
 * JSON column, to_char of each date) took longer than the rows themselves, and an export waited
 * for it (docs/performance.md, Export); here it is a copy of bytes with a few escaped. Each row is written as its CopyData
 * comes (PostgreSQL sends one a row), straight from pg's read buffer: not gathered first.
 */
export class CopyOutJson extends Submitted<JoinedRows & { last: Buffer }> {
  private readonly shape: RowShape;
  /** Where the rows are written: the rest of the buffer the last batch wrote into, or a new one (see `spare`). */
  private out = spare ?? Buffer.allocUnsafe(SLAB);
  private end = 0;
  /** The buffers this batch filled before `out`. */
  private readonly full: Buffer[] = [];
  private count = 0;
  /** Where the last row written starts. */
  private last = 0;
  /** The unread part of a CopyData that ended inside a row; before the header is read, all of it. */
  private rest: Buffer | undefined;
  private started = false;
  /** The day (since 1970) of the last date written, whose `"YYYY-MM-DDT` is at dayAt in `out`. */
  private day = NaN;
  private dayAt = 0;

  constructor(
    text: string,
    private readonly columns: readonly JsonColumn[],
  ) {
    super(text);
    spare = undefined;
    this.shape = rowShape(columns);
  }

  override handleCopyData(msg: { chunk: Buffer }): void {
    // The chunk is a view of pg's read buffer, which it reuses: what is left of it is copied.
    if (this.error) return;
    let data = msg.chunk;
    if (this.rest) data = Buffer.concat([this.rest, data]);
    this.rest = undefined;
    let at = 0;
    if (!this.started) {
      if (data.length < COPY_HEADER || data.length < COPY_HEADER + int32(data, COPY_HEADER - 4)) {
        this.rest = Buffer.from(data);
        return;
      }
      if (!data.subarray(0, COPY_SIGNATURE.length).equals(COPY_SIGNATURE)) {
        this.error ??= new Error('COPY answered without its binary header');
        return;
      }
      this.started = true;
      at = COPY_HEADER + int32(data, COPY_HEADER - 4);
    }
    at = this.rows(data, at);
    if (at < data.length) this.rest = Buffer.from(data.subarray(at));
  }

  /** Writes the whole rows of data from `at`; answers where the first row not whole starts. */
  private rows(data: Buffer, at: number): number {
    const { columns } = this;
    const { heads, nulls, fixed } = this.shape;
    const size = data.length;
    while (at + 2 <= size) {
      const fields = (data[at]! << 8) | data[at + 1]!;
      // -1 (0xffff) ends the data.
      if (fields === 0xffff) return size;
      if (fields !== columns.length) {
        this.error ??= new Error(`COPY answered rows of ${fields} columns, not ${columns.length}`);
        return size;
      }
      // The row's end, if it is whole here.
      let stop = at + 2;
      for (let i = 0; i < fields; i++) {
        if (stop + 4 > size) return at;
        stop += 4 + Math.max(0, int32(data, stop));
      }
      if (stop > size) return at;
      this.room(fixed + (stop - at) * 6);
      const out = this.out;
      let end = this.end;
      if (this.count > 0) end = put(out, end, SEPARATOR);
      this.last = end;
      let p = at + 2;
      for (let i = 0; i < fields; i++) {
        const length = int32(data, p);
        p += 4;
        if (length < 0) {
          // With the nulls after it, in one copy.
          let j = i + 1;
          while (j < fields && int32(data, p) === -1) {
            j++;
            p += 4;
          }
          const run = nulls[i]![j - i - 1]!;
          if (run.length > 48) end += copyAll(run, out, end);
          else end = put(out, end, run);
          i = j - 1;
          continue;
        }
        end = put(out, end, heads[i]!);
        const kind = columns[i]!.kind;
        if (kind === 'json') {
          // (Its text as it was stored: the JSON.stringify of the ingest.)
          end = copyRun(data, p, p + length, out, end);
        } else if (kind === 'date') {
          end = this.date(out, end, data, p);
        } else {
          // Copied as it is checked: one pass over the bytes (a check, then a copy, took longer).
          out[end++] = 0x22;
          const to = p + length;
          for (let k = p; k < to; k++) {
            const c = data[k]!;
            if (ESCAPED[c] === 0) out[end++] = c;
            else end = put(out, end, ESCAPES[c]!);
          }
          out[end++] = 0x22;
        }
        p += length;
      }
      out[end++] = 0x7d;
      this.end = end;
      this.count++;
      at = stop;
    }
    return at;
  }

  /**
   * Writes a binary timestamptz (int64 microseconds since 2000) at `end` as toISOString does,
   * to the millisecond as to_char's MS (stored dates have no more). The day's part is copied
   * from the last date written when it is the same day (a list's neighbours mostly are).
   */
  private date(out: Buffer, end: number, data: Buffer, p: number): number {
    const micros = int32(data, p) * 2 ** 32 + data.readUInt32BE(p + 4);
    const ms = PG_EPOCH_MS + Math.floor(micros / 1000);
    const days = Math.floor(ms / DAY_MS);
    if (days === this.day) for (let k = 0; k < DAY_BYTES; k++) out[end + k] = out[this.dayAt + k]!;
    else if (isoDay(out, end, days)) this.day = days;
    else return end + out.write(`"${new Date(ms).toISOString()}"`, end, 'latin1');
    this.dayAt = end;
    end += DAY_BYTES;
    let rest = ms - days * DAY_MS;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    rest -= seconds * 1000;
    two(out, end, hours);
    out[end + 2] = 0x3a;
    two(out, end + 3, minutes);
    out[end + 5] = 0x3a;
    two(out, end + 6, seconds);
    out[end + 8] = 0x2e;
    out[end + 9] = 0x30 + Math.floor(rest / 100);
    two(out, end + 10, rest % 100);
    out[end + 12] = 0x5a;
    out[end + 13] = 0x22;
    return end + 14;
  }

  /**
   * Makes room for a row of up to `n` bytes: when `out` is full, what it holds becomes one of the
   * batch's pieces and the row starts a new buffer (growing one by copying what it held cost an
   * export the service's processor for every copy).
   */
  private room(n: number): void {
    if (this.end + n <= this.out.length) return;
    if (this.end > 0) this.full.push(this.out.subarray(0, this.end));
    this.out = Buffer.allocUnsafe(Math.max(SLAB, n));
    this.end = 0;
    // The day's part copied from is in the old buffer now.
    this.day = NaN;
  }

  protected result(): JoinedRows & { last: Buffer } {
    const { out, end, last, count } = this;
    if (out.length - end >= SLAB / 16) spare = out.subarray(end);
    return { count, joined: [...this.full, out.subarray(0, end)], last: out.subarray(last, end) };
  }
}
/**
 * Batches write into one buffer after another, each starting where the last one ended: a few MB
 * allocated for several batches, not one buffer each (twice its size: half of it never written,
 * and all of it external memory V8 counts towards its next collection). A batch takes the
 * spare part as it starts, so that two lists read at once never write into the same bytes; the
 * bytes sent keep their buffer alive until the socket has written them.
 */
const SLAB = 4 << 20;
let spare: Buffer | undefined;
