// Records in six formats (table, wide, json, ndjson, csv, yaml), all streamed, with backpressure.
// A new format is a sink here and a name in FORMATS (./formats.ts). `wide` is the table with ids whole and no
// column hidden (list-table.ts lays lists out).
import { isStdoutTty, stdoutColor, stdoutColumns, stdoutPaint } from '../base/color.js';
import { UsageError } from '../base/errors.js';
import { timeZone, type Zone } from '../base/dates.js';
import { cellText, columnFor, SAMPLE_MS, tableWriter, type ListView, type TableWriter } from './list-table.js';
import { FORMATS, isFormat, type Format } from '../base/formats.js';
import { displayWidth } from './text.js';

export { FORMATS, isFormat, type Format };

export type Rec = Record<string, unknown>;
export type RecordSource = AsyncIterable<Rec> | Iterable<Rec> | Batches<Rec>;

/**
 * Records given a received chunk's worth at a time (the client's streamBatches): written with one
 * await a chunk, not one a record, which was much of the time of a million-row table.
 */
export class Batches<T extends object = Rec> {
  constructor(readonly batches: AsyncIterable<readonly T[]>) {}
}

/** What a list command prints: its records, one by one or in batches. */
export type ListSource = AsyncIterable<object> | Iterable<object> | Batches<object>;

/** The stream records are written to: process.stdout, or any Writable (tests). */
export type Out = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface WriteOptions {
  format: Format;
  /** `--fields a,b.c`: keys/columns in this order; dots reach into nested objects. */
  fields?: string[];
  /** `--quiet`: the id of each record, one a line, whatever the format. */
  quiet?: boolean;
  /** The resource's table: its columns and which matter most (used when no `fields`). Keys alone get kinds guessed from their names. */
  columns?: ListView | string[];
  /** Key printed by `quiet`: default 'id'. */
  idField?: string;
  /** One object rather than a list. */
  single?: boolean;
  /** Terminal width for tables; default: the stream's columns, else `stdoutColumns()`. */
  width?: number;
  /** The zone a table prints dates in; default the local one. */
  zone?: Zone;
  /** Stop early (the reader went away): the records read so far are the output. */
  signal?: AbortSignal;
  /** Told the note for under a table laid out for a terminal (the zone, shortened ids, hidden columns). */
  onNote?: (note: string) => void;
}

function checkFormat(value: string, what: string): Format {
  if (isFormat(value)) return value;
  throw new UsageError(`invalid ${what} "${value}": use one of ${FORMATS.join(', ')}`);
}

/**
 * The output format: `--json` means json; an explicit `-o` wins; then the profile's default;
 * else `table` when stdout is a terminal and `json` when it is not.
 */
export function resolveFormat(opts: { output?: string; json?: boolean }, configDefault?: string): Format {
  if (opts.output !== undefined && opts.output !== '') {
    const f = checkFormat(opts.output, 'output format');
    if (opts.json && f !== 'json') throw new UsageError(`--json conflicts with -o ${f}: give one of them`);
    return f;
  }
  if (opts.json) return 'json';
  if (configDefault) return checkFormat(configDefault, 'output format in the profile');
  return isStdoutTty() ? 'table' : 'json';
}

// ---------------------------------------------------------------- writing with backpressure

function drained(out: Out): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      out.removeListener('drain', onDrain);
      out.removeListener('error', onError);
      out.removeListener('close', onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onError = (err: unknown) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(Object.assign(new Error('output closed'), { code: 'EPIPE' }));
    };
    out.once('drain', onDrain);
    out.once('error', onError);
    out.once('close', onClose);
  });
}

/** Writes a chunk; waits for 'drain' when the stream's buffer is full. */
export async function put(out: Out, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk)) await drained(out);
}

/** Lines are gathered into chunks of about this many bytes: one write per line costs more than the line. */
const CHUNK = 64 * 1024;

/**
 * Text gathered into chunks of UTF-8 bytes and written to a stream, waiting for 'drain' when its
 * buffer is full. Each text is encoded into the chunk as it comes: a chunk gathered as one string
 * of many small ones (a table's cells) is many times slower to encode when written.
 */
export class ChunkWriter {
  private bytes = Buffer.allocUnsafe(2 * CHUNK);
  private at = 0;
  constructor(private readonly out: Out) {}

  /** Bytes gathered and not written yet. */
  get size(): number {
    return this.at;
  }

  /** Gathers text without writing (see take). */
  add(text: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    if (this.at + 3 * text.length > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * CHUNK, this.at + 3 * text.length));
      this.bytes.copy(bigger, 0, 0, this.at);
      this.bytes = bigger;
    }
    this.at += this.bytes.write(text, this.at);
  }

  /** The bytes gathered, to write now; the next text starts a new chunk. */
  take(): Buffer {
    const chunk = this.bytes.subarray(0, this.at);
    this.bytes = Buffer.allocUnsafe(2 * CHUNK);
    this.at = 0;
    return chunk;
  }

  async write(text: string): Promise<void> {
    this.add(text);
    if (this.at >= CHUNK) await this.flush();
  }

  /** Bytes ready to go, after the text before them. */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.flush();
    await put(this.out, bytes);
  }

  async flush(): Promise<void> {
    if (this.at > 0) await put(this.out, this.take());
  }
}

function isTty(out: Out): boolean {
  return process.env.CHATFLOW_FORCE_TTY === '1' || out.isTTY === true || (out === process.stdout && isStdoutTty());
}

// ---------------------------------------------------------------- fields

function hasOwn(obj: unknown, key: string): boolean {
  return obj !== null && typeof obj === 'object' && Object.prototype.hasOwnProperty.call(obj, key);
}

/** Value at a key, or a dotted path into nested objects (a literal key with dots wins). */
export function getPath(rec: unknown, path: string): unknown {
  if (hasOwn(rec, path)) return (rec as Rec)[path];
  let cur: unknown = rec;
  for (const seg of path.split('.')) {
    if (!hasOwn(cur, seg)) return undefined;
    cur = (cur as Rec)[seg];
  }
  return cur;
}

function isPlainObject(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Fields a record offers: its keys, and dotted keys of nested objects (two levels). */
function availableFields(rec: Rec, prefix = '', depth = 0): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    out.push(prefix + k);
    if (depth < 2 && isPlainObject(v)) out.push(...availableFields(v, `${prefix}${k}.`, depth + 1));
  }
  return out;
}

/**
 * Whether a field can be asked of records like `rec`. A top-level key must exist; below it,
 * optional nested keys are accepted unless the path runs into a string, number or array.
 */
function fieldKnown(rec: Rec, path: string): boolean {
  if (hasOwn(rec, path)) return true;
  const segs = path.split('.');
  if (!hasOwn(rec, segs[0]!)) return false;
  let cur: unknown = rec[segs[0]!];
  for (const seg of segs.slice(1)) {
    if (cur === null || cur === undefined) return true;
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return false;
    } else if (typeof cur !== 'object') return false;
    if (!hasOwn(cur, seg)) return true;
    cur = (cur as Rec)[seg];
  }
  return true;
}

function checkFields(fields: string[], first: Rec, alsoKnown: readonly string[]): void {
  const unknown = fields.filter((f) => !alsoKnown.includes(f) && !fieldKnown(first, f));
  if (unknown.length === 0) return;
  const s = unknown.length > 1 ? 's' : '';
  throw new UsageError(
    `unknown field${s} ${unknown.join(', ')}; available: ${availableFields(first).join(', ')}`,
  );
}

function normalizeFields(fields: string[] | undefined): string[] | undefined {
  if (!fields) return undefined;
  const list = fields.flatMap((f) => f.split(',')).map((f) => f.trim()).filter((f) => f !== '');
  return list.length > 0 ? list : undefined;
}

/** The record cut down to `fields`, in order, keyed by the field as written; missing ones are null. */
function project(rec: Rec, fields: string[] | undefined): Rec {
  if (!fields) return rec;
  const out: Rec = {};
  for (const f of fields) out[f] = getPath(rec, f) ?? null;
  return out;
}

// ---------------------------------------------------------------- cell text

/** RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled. */
export function csvField(value: unknown): string {
  let s: string;
  if (value === null || value === undefined) s = '';
  else if (typeof value === 'string') s = value;
  else if (value instanceof Date) s = value.toISOString();
  else if (typeof value === 'object') s = JSON.stringify(value);
  else s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const TABLE_CHARS = [
  'top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right',
  'left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid', 'middle',
] as const;

function terminalWidth(out: Out, opts: WriteOptions): number {
  return opts.width ?? (typeof out.columns === 'number' && out.columns > 0 ? out.columns : stdoutColumns());
}

/** One record as a table of key and value (small and whole: cli-table3 lays it out). */
async function renderRecord(rows: string[][], out: Out, opts: WriteOptions): Promise<void> {
  const { default: Table } = await import('cli-table3');
  const paint = stdoutPaint();
  // Borderless, columns apart by their right padding (as kubectl and gh lay out lists): the
  // text copies cleanly.
  const tableOpts: ConstructorParameters<typeof Table>[0] = {
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: Object.fromEntries(TABLE_CHARS.map((c) => [c, ''])),
  };
  if (isTty(out)) {
    // The keys whole, the values wrapped in the rest of the line: a detail view never cuts (an
    // assistant's instructions are read back whole).
    const keyWidth = rows.reduce((w, [k]) => Math.max(w, displayWidth(k!)), 0) + 2;
    const valueWidth = rows.reduce((w, [, v]) => Math.max(w, displayWidth(v!)), 0) + 2;
    tableOpts.colWidths = [keyWidth, Math.max(5, Math.min(valueWidth, terminalWidth(out, opts) - 1 - keyWidth))];
    tableOpts.wordWrap = true;
  }
  const table = new Table(tableOpts);
  for (const row of rows) table.push(paint ? [paint.bold(row[0] ?? ''), ...row.slice(1)] : row);
  await put(out, `${table.toString().replace(/ +$/gm, '')}\n`);
}

// ---------------------------------------------------------------- sinks, one per format

interface Sink {
  /** A promise when the record has to wait (a full stream). */
  record(rec: Rec): Promise<void> | void;
  end(count: number): Promise<void>;
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

function jsonSink(out: Out, fields: string[] | undefined, single: boolean, pretty: boolean): Sink {
  let n = 0;
  return {
    async record(rec) {
      const value = project(rec, fields);
      if (single) {
        await put(out, `${pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
      } else if (pretty) {
        await put(out, `${n === 0 ? '[\n' : ',\n'}${indent(JSON.stringify(value, null, 2))}`);
      } else {
        await put(out, `${n === 0 ? '[\n' : ',\n'}${JSON.stringify(value)}`);
      }
      n++;
    },
    async end() {
      if (single) return;
      await put(out, n === 0 ? '[]\n' : '\n]\n');
    },
  };
}

function ndjsonSink(out: Out, fields: string[] | undefined): Sink {
  return {
    record: (rec) => put(out, `${JSON.stringify(project(rec, fields))}\n`),
    async end() {},
  };
}

function csvSink(out: Out, fields: string[] | undefined): Sink {
  let cols: string[] | undefined;
  return {
    async record(rec) {
      let header = '';
      if (!cols) {
        cols = fields ?? Object.keys(rec);
        header = `${cols.map(csvField).join(',')}\r\n`;
      }
      const cells = fields ? cols.map((c) => csvField(getPath(rec, c))) : cols.map((c) => csvField(rec[c]));
      await put(out, `${header}${cells.join(',')}\r\n`);
    },
    async end() {},
  };
}

async function yamlSink(out: Out, fields: string[] | undefined, single: boolean): Promise<Sink> {
  const { stringify } = await import('yaml');
  let n = 0;
  return {
    async record(rec) {
      const value = project(rec, fields);
      // One `- ...` item per record: the list is a YAML sequence, streamed.
      await put(out, stringify(single ? value : [value]));
      n++;
    },
    async end() {
      if (!single && n === 0) await put(out, '[]\n');
    },
  };
}

function recordSink(out: Out, fields: string[] | undefined, opts: WriteOptions): Sink {
  const zone = opts.zone ?? timeZone();
  const rows: string[][] = [];
  return {
    async record(rec) {
      for (const k of fields ?? Object.keys(rec)) rows.push([k, cellText(columnFor(k), fields ? getPath(rec, k) : rec[k], zone)]);
    },
    async end(count) {
      if (count > 0) await renderRecord(rows, out, opts);
    },
  };
}

const viewOf = (columns: ListView | string[]): ListView => (Array.isArray(columns) ? { columns: columns.map(columnFor) } : columns);

/** How long a table's gathered lines may wait for more before they are written. */
const IDLE_MS = 20;

/** A list as a table, streamed: rows print as they come, fitted to widths taken from the first ones. */
function tableSink(out: Out, fields: string[] | undefined, opts: WriteOptions): Sink {
  let writer: TableWriter | undefined;
  let keys: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const tty = isTty(out);
  // Lines are gathered into chunks (a write a line cost more than the line: a million rows, a
  // million system calls); what is gathered goes out when no chunk filled for IDLE_MS, so a slow
  // source's rows are not held back (a person sees no delay), and a fast one is written in whole
  // chunks, not at each pause of its socket.
  const gathered = new ChunkWriter(out);
  let idle: NodeJS.Timeout | undefined;
  const writeIdle = () => {
    idle = undefined;
    if (gathered.size > 0 && out.writable) out.write(gathered.take());
  };
  return {
    record(rec) {
      if (!writer) {
        // Columns named by --fields are shown whole, as asked; else the resource's view.
        const view = fields ? viewOf(fields) : viewOf(opts.columns ?? Object.keys(rec));
        keys = view.columns.map((c) => c.key);
        writer = tableWriter(view, {
          zone: opts.zone ?? timeZone(),
          width: tty ? terminalWidth(out, opts) : undefined,
          wide: opts.format === 'wide' || fields !== undefined,
          color: stdoutColor(),
        });
        // A slow source (a remote server's next page) must not hold the first rows back: the
        // sample is laid out when it is this old, whatever its size. (A sample is small: written
        // without waiting for 'drain'.)
        const w = writer;
        timer = setTimeout(() => {
          const text = w.flush();
          if (text) out.write(text);
        }, SAMPLE_MS);
        timer.unref();
      }
      const text = writer.add(keys.map((k) => getPath(rec, k)));
      if (text === '') return;
      clearTimeout(timer);
      gathered.add(text);
      if (gathered.size >= CHUNK) {
        clearTimeout(idle);
        idle = undefined;
        return gathered.flush();
      }
      idle ??= setTimeout(writeIdle, IDLE_MS);
    },
    async end() {
      clearTimeout(timer);
      clearTimeout(idle);
      if (!writer) return;
      gathered.add(writer.flush());
      await gathered.flush();
      const note = writer.note();
      if (tty && note) opts.onNote?.(note);
    },
  };
}

function quietSink(out: Out, idField: string): Sink {
  return {
    async record(rec) {
      const id = getPath(rec, idField);
      if (id === undefined || id === null) return;
      await put(out, `${typeof id === 'object' ? JSON.stringify(id) : String(id)}\n`);
    },
    async end() {},
  };
}

function isSource(x: unknown): x is RecordSource {
  return (
    x instanceof Batches ||
    (x !== null &&
      typeof x === 'object' &&
      (typeof (x as Iterable<unknown>)[Symbol.iterator] === 'function' ||
        typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'))
  );
}

/**
 * Writes records to `out` in the chosen format and returns how many were written (0: the caller
 * prints "No <things> found." for a table). Every format streams record by record and waits for
 * 'drain' when `out` is full; a table holds only its first rows back, to lay them out.
 */
export async function writeRecords(
  records: RecordSource | Rec,
  opts: WriteOptions,
  out: Out = process.stdout,
): Promise<number> {
  const fields = normalizeFields(opts.fields);
  const single = opts.single === true;
  const source: RecordSource = isSource(records) ? records : [records];
  let sink: Sink;
  if (opts.quiet) sink = quietSink(out, opts.idField ?? 'id');
  else {
    switch (opts.format) {
      case 'json':
        sink = jsonSink(out, fields, single, isTty(out));
        break;
      case 'ndjson':
        sink = ndjsonSink(out, fields);
        break;
      case 'csv':
        sink = csvSink(out, fields);
        break;
      case 'yaml':
        sink = await yamlSink(out, fields, single);
        break;
      case 'table':
      case 'wide':
        sink = single ? recordSink(out, fields, opts) : tableSink(out, fields, opts);
        break;
      default:
        throw new UsageError(`invalid output format "${String(opts.format)}": use one of ${FORMATS.join(', ')}`);
    }
  }
  let count = 0;
  const known = opts.columns ? viewOf(opts.columns).columns.map((c) => c.key) : [];
  // Each record written; answers whether to stop (a promise only when the sink has to wait).
  const write = (rec: Rec): boolean | Promise<boolean> => {
    if (opts.signal?.aborted) return true;
    if (count === 0 && fields) checkFields(fields, rec, known);
    const wait = sink.record(rec);
    count++;
    return wait ? wait.then(() => single) : single;
  };
  if (source instanceof Batches) {
    read: for await (const batch of source.batches) {
      for (const rec of batch) {
        const stop = write(rec);
        if (stop === true || (stop !== false && (await stop))) break read;
      }
    }
  } else {
    for await (const rec of source) if (await write(rec)) break;
  }
  await sink.end(count);
  return count;
}
