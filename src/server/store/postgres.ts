// The PostgreSQL store: the same kysely store as SQLite over a `pg` pool, for several replicas
// sharing one database. `pg` is imported only when this store is opened.
import type { Pool, PoolClient, PoolConfig } from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { JsonColumn, PgDirect } from './engine.js';
import { ROW_SEPARATOR, type JoinedRows } from './types.js';
import { Unstorable } from './errors.js';
import { isUnavailable } from './failures.js';
import { KyselyStore } from './kysely-store.js';
import { migrate } from './migrations.js';
import type { Database } from './tables.js';

export interface PostgresOptions {
  /** Connections per replica (default 10). */
  poolSize?: number;
  /** How long to wait for a connection, new or from the pool, before failing (default 10 s). */
  connectTimeoutMs?: number;
  /** Schema to work in (its tables, its migrations); default: the server's search_path. */
  schema?: string;
  /** Shown in pg_stat_activity (default `chatflow`). */
  applicationName?: string;
  /** Told about connections lost while idle; the pool drops them and opens new ones on demand. */
  onConnectionError?: (err: Error) => void;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The URL with its user and password hidden: `postgres://***@host:5432/db`. */
export function redactUrl(url: string): string {
  // Up to the last @ of the authority: a password may hold an unescaped @.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** Removes credentials from a message that may quote the URL (or the password alone). */
function redactMessage(message: string, url: string): string {
  let out = message.split(url).join(redactUrl(url)).replace(/(postgres(?:ql)?:\/\/)[^/\s?#]*@/gi, '$1***@');
  const password = passwordOf(url);
  if (password && password.length >= 3) out = out.split(password).join('***');
  return out;
}

function passwordOf(url: string): string | undefined {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}

/** Where the URL points, safe to print: host:port/database, no credentials. */
function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || new URLSearchParams(u.search).get('host') || 'localhost';
    return `${host}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return redactUrl(url);
  }
}

/** A start-up failure with a message fit to print; keeps the driver's `code`, drops the rest. */
class PostgresOpenError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'PostgresOpenError';
    this.code = code;
  }
}

function openError(err: unknown, url: string): PostgresOpenError {
  const e = err as { code?: string; message?: string } | null;
  const target = describeTarget(url);
  const raw = redactMessage(e?.message ?? String(err), url);
  let message: string;
  switch (e?.code) {
    case 'ECONNREFUSED':
      message = `cannot connect to PostgreSQL at ${target}: connection refused (is the server running?)`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      message = `cannot connect to PostgreSQL at ${target}: unknown host`;
      break;
    case '3D000':
      message = `PostgreSQL at ${target}: ${raw} (create it first: CREATE DATABASE ...)`;
      break;
    default:
      message = `PostgreSQL at ${target}: ${raw}`;
  }
  return new PostgresOpenError(message, e?.code);
}

/**
 * Driver errors that are the value's fault rather than the database's: PostgreSQL cannot store a
 * NUL character in text nor a date in year 0 (1 BC), which SQLite accepts.
 */
const NUL = 'text may not contain the NUL character (\\u0000): the PostgreSQL store cannot keep it';

function translate(err: unknown): unknown {
  const e = err as { code?: string; message?: string } | null;
  if (e?.code === '22021' && /0x00/.test(e.message ?? '')) return new Unstorable(NUL);
  if (e?.code === '22008') return new Unstorable('a date is outside the range the PostgreSQL store can keep');
  return err;
}

/** Errors after which a connection is no use: lost, cut by the server, or shutting down. */
function isConnectionFatal(err: unknown): boolean {
  const e = err as { code?: string; severity?: string } | null;
  return isUnavailable(err) || e?.severity === 'FATAL' || e?.severity === 'PANIC' || /^(57P|08)/.test(e?.code ?? '');
}

class PgConnection implements DatabaseConnection {
  /** Set when a query failed in a way that leaves the connection unusable. */
  broken: Error | undefined;
  constructor(readonly client: PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const { command, rowCount, rows } = await this.client.query(query.sql, [...query.parameters]);
      const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
      return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    } catch (err) {
      if (isConnectionFatal(err)) this.broken = err as Error;
      throw translate(err);
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the PostgreSQL store does not stream with cursors; it pages by key');
  }
}

/**
 * A query pg sends as it is (a "submittable"): one simple-protocol query string, answered when
 * PostgreSQL is ready for the next. The COPY statements below use it: pg's own queries would
 * decode each row read into a string and a row object, and cannot send COPY data at all.
 */
abstract class Submitted<T> {
  protected error: Error | undefined;
  readonly done: Promise<T>;
  private settle!: (error: Error | undefined) => void;

  constructor(private readonly text: string) {
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve(this.result()));
    });
  }
  protected abstract result(): T;
  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }
  handleError(err: Error): void {
    // A failed statement is followed by ReadyForQuery; a lost connection is not.
    this.error ??= err;
    this.settle(err);
  }
  handleReadyForQuery(): void {
    this.settle(this.error);
  }
  handleCommandComplete(_msg: { text: string }): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(_msg: { chunk: Buffer }): void {}
  handleCopyInResponse(_connection: CopyConnection): void {}
}

interface CopyConnection {
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/** COPY … TO STDOUT (FORMAT binary): the CopyData gathered into one buffer, its rows read at the end. */
abstract class CopyOut<T> extends Submitted<T> {
  protected size = 0;
  constructor(
    text: string,
    protected data: Buffer,
  ) {
    super(text);
  }

  override handleCopyData(msg: { chunk: Buffer }): void {
    // The chunk is a view of pg's read buffer, which it reuses: copied at once.
    const { chunk } = msg;
    if (this.size + chunk.length > this.data.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.size + chunk.length));
      this.data.copy(grown, 0, 0, this.size);
      this.data = grown;
    }
    this.size += chunk.copy(this.data, this.size);
  }
}

/**
 * COPY … TO STDOUT (FORMAT binary) of one column: its rows' bytes joined by ROW_SEPARATOR in
 * place. No row becomes an object of its own.
 */
class CopyOutText extends CopyOut<JoinedRows & { last: Buffer }> {
  constructor(text: string) {
    super(text, Buffer.allocUnsafe(1 << 16));
  }

  /**
   * The binary COPY format is a 19-byte header, then each row as its field count (1), its length
   * and its bytes; -1 ends it. Each row moves to just after the one before and a separator, which
   * takes fewer bytes than the 6 before it: the buffer is rewritten in place, front to back.
   */
  protected result(): JoinedRows & { last: Buffer } {
    const data = this.data;
    let count = 0;
    let at = 19;
    let end = 0;
    let last = 0;
    while (at + 2 <= this.size && data.readInt16BE(at) === 1) {
      const length = data.readInt32BE(at + 2);
      at += 6;
      if (count > 0) end += SEPARATOR.copy(data, end);
      last = end;
      data.copyWithin(end, at, at + length);
      end += length;
      at += length;
      count++;
    }
    return { count, joined: [data.subarray(0, end)], last: data.subarray(last, end) };
  }
}
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
 * JSON column, to_char of each date) took twice its time for the rows alone, and an export waited
 * for it; here it is a copy of bytes with a few escaped. Each row is written as its CopyData
 * comes (PostgreSQL sends one a row), straight from pg's read buffer: not gathered first.
 */
class CopyOutJson extends Submitted<JoinedRows & { last: Buffer }> {
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
   * export of a million rows 0.7 s of the service's processor).
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

/** COPY … FROM STDIN of rows in COPY's text format: answers how many it wrote. */
class CopyIn extends Submitted<number> {
  private count = 0;
  constructor(
    text: string,
    private readonly data: Buffer,
  ) {
    super(text);
  }
  override handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }
  override handleCommandComplete(msg: { text: string }): void {
    this.count = Number(/^COPY (\d+)/.exec(msg.text)?.[1] ?? 0);
  }
  protected result(): number {
    return this.count;
  }
}

/** A value in COPY's text format: \N for null; backslash, tab, newline and return escaped. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : String(value);
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : text;
}

/** A value of a listing's query as an SQL literal: a statement of several, and COPY, take no parameters. */
function literal(value: unknown, escape: (text: string) => string): string {
  if (typeof value === 'string') {
    // A query string is a C string to the server: a NUL would end it mid-literal (and a bound
    // parameter with one is refused as 22021, translated above).
    if (value.includes('\u0000')) throw new Unstorable(NUL);
    return escape(value);
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return escape(value.toISOString());
  throw new Error(`cannot write ${typeof value} ${String(value)} into a statement`);
}

/**
 * Engine's PgDirect over the pool: `setting; query` as one simple-protocol query string (the
 * query's values written in as literals), one round trip where a transaction of its own took four.
 */
function pgDirect(pool: Pool, escape: (text: string) => string, ident: (name: string) => string): PgDirect {
  const inline = (query: CompiledQuery) => query.sql.replace(/\$(\d+)/g, (_, n: string) => literal(query.parameters[Number(n) - 1], escape));
  async function run<T>(send: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      return await send(client);
    } catch (err) {
      if (isConnectionFatal(err)) broken = err as Error;
      throw translate(err);
    } finally {
      client.release(broken);
    }
  }
  return {
    copyIn: (table, columns, rows) =>
      run((client) => {
        // A string a row, written into the data as bytes: one string of them all became two bytes
        // a character as soon as one row held a character outside Latin-1, and encoding it took
        // longer than building it.
        const lines = new Array<string>(rows.length);
        let size = 0;
        for (const [r, row] of (rows as Record<string, unknown>[]).entries()) {
          let line = copyValue(row[columns[0]!]);
          for (let i = 1; i < columns.length; i++) line += `\t${copyValue(row[columns[i]!])}`;
          lines[r] = line += '\n';
          size += Buffer.byteLength(line);
        }
        const data = Buffer.allocUnsafe(size);
        let at = 0;
        for (const line of lines) at += data.write(line, at);
        const copy = new CopyIn(`copy ${ident(table)} (${columns.map(ident).join(', ')}) from stdin`, data);
        client.query(copy as never);
        return copy.done;
      }),
    rows: (query, setting) =>
      run(async (client) => {
        if (!setting) return (await client.query(inline(query))).rows;
        // Two statements: pg answers a result each.
        const results = (await client.query(`${setting}; ${inline(query)}`)) as unknown as { rows: unknown[] }[];
        return results[1]!.rows;
      }),
    bytes: (query, setting, columns) =>
      run((client) => {
        const text = `${setting ? `${setting}; ` : ''}copy (${inline(query)}) to stdout (format binary)`;
        const copy = columns ? new CopyOutJson(text, columns) : new CopyOutText(text);
        client.query(copy as never);
        return copy.done;
      }),
  };
}

/**
 * kysely's driver contract over a `pg` pool. kysely's own PostgresDriver releases a connection
 * without saying it failed, so pg-pool puts a connection the server has just cut back in the pool
 * (its socket is not closed yet) and the next request fails on it too. This one tells the pool to
 * discard it.
 */
class PgDriver implements Driver {
  constructor(private readonly pool: Pool) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PgConnection(await this.pool.connect());
  }
  async beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      statement = 'start transaction';
      if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) statement += ` ${settings.accessMode}`;
    }
    await c.executeQuery(CompiledQuery.raw(statement));
  }
  async commitTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    try {
      await c.executeQuery(CompiledQuery.raw('rollback'));
    } catch (err) {
      // A failed rollback must not hide the error that caused it: that one goes on to the
      // caller, and the connection, in a state nobody knows, is discarded on release.
      (c as PgConnection).broken ??= err as Error;
    }
  }
  async releaseConnection(c: DatabaseConnection): Promise<void> {
    const connection = c as PgConnection;
    // An error given to release() makes pg-pool close the client instead of keeping it.
    connection.client.release(connection.broken);
  }
  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

class PgDialect extends PostgresDialect {
  constructor(private readonly pool: Pool) {
    super({ pool });
  }
  override createDriver(): Driver {
    return new PgDriver(this.pool);
  }
}

/**
 * Opens (and migrates) the store. Queries made while the database is unreachable fail with
 * errors `isUnavailable()` recognises (answered 503); the pool reconnects when it is back.
 */
export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<KyselyStore> {
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new PostgresOpenError('the database URL must start with postgres:// or postgresql://');
  }
  if (options.schema !== undefined && !IDENTIFIER.test(options.schema)) {
    throw new PostgresOpenError(`schema ${JSON.stringify(options.schema)} is not a plain identifier`);
  }
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new PostgresOpenError('the pool size must be a whole number ≥ 1');

  const { default: pg } = await import('pg');
  const config: PoolConfig = {
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: options.applicationName ?? 'chatflow',
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  };
  let pool: Pool;
  try {
    pool = new pg.Pool(config);
  } catch (err) {
    // The URL parser's errors may quote the URL: say only what is wrong.
    throw new PostgresOpenError(`the database URL ${redactUrl(url)} cannot be parsed: ${redactMessage((err as Error).message, url)}`);
  }
  // A connection lost while idle (server restart, failover, pg_terminate_backend) is reported
  // here; without a listener it would crash the process. The pool has already dropped it.
  pool.on('error', (err) => options.onConnectionError?.(err));
  // A connection lost while checked out, between two queries, is reported on the client itself:
  // the next query on it fails (503) and the pool discards it when it is released.
  pool.on('connect', (client: PoolClient) => {
    client.on('error', () => {});
  });

  const db = new Kysely<Database>({ dialect: new PgDialect(pool) });
  try {
    await migrate(db as Kysely<unknown>, 'postgres');
  } catch (err) {
    await db.destroy().catch(() => {});
    throw openError(err, url);
  }
  return new KyselyStore(db, 'postgres', db, undefined, pgDirect(pool, (text) => pg.escapeLiteral(text), (name) => pg.escapeIdentifier(name)));
}
