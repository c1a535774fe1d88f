// Incremental parser for the service's streamed lists: `[\n` + one JSON value per line joined by
// `,\n` + `\n]`. JSON.stringify never emits a raw newline inside a string, so each line holds one
// whole element and memory stays constant however long the list is. Anything else (Flowise's
// compact one-line arrays, pretty-printed JSON, `{data, total}`) is buffered and parsed whole.

/** Thrown for a body that is not a readable list; the caller turns it into a ChatflowError. */
export class ListParseError extends Error {
  override readonly name = 'ListParseError';
}

type Mode = 'detect' | 'lines' | 'compact' | 'buffer';

/** Elements of a whole-body list: an array, or Flowise's paginated `{data: [...]}`. */
export function listItems(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)) {
    return (body as { data: unknown[] }).data;
  }
  throw new ListParseError('expected a JSON array');
}

export async function* parseJsonList(source: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  for await (const batch of parseJsonBatches(source)) for (const entry of batch) yield entry.value;
}

/**
 * An element of a list: its value, or (line-per-element lists read with `parse: false`) the text
 * of the line instead, after the first element.
 */
export interface ListEntry {
  value?: unknown;
  /** The element's text as received (line-per-element lists only). */
  text?: string;
}

/**
 * The elements of a JSON array written on one line (Flowise's lists), each parsed as soon as its
 * text is whole: a long answer costs one element's text at a time, not the whole body.
 */
class CompactArray {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The unfinished element's text from earlier pieces. */
  private carry = '';
  opened = false;
  closed = false;

  /** The elements `text` completes. */
  feed(text: string, out: ListEntry[]): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (this.depth === 0) {
          if (this.opened || c !== 0x5b) throw new ListParseError('malformed list: not one JSON array');
          this.opened = true;
          start = i + 1;
        }
        this.depth++;
      } else if (c === 0x7d || c === 0x5d) {
        this.depth--;
        if (this.depth === 0) {
          this.element(text.slice(start, i), out);
          this.closed = true;
          start = i + 1;
        }
      } else if (c === 0x2c && this.depth === 1) {
        this.element(text.slice(start, i), out);
        start = i + 1;
      } else if (this.depth === 0 && c > 0x20) throw new ListParseError(this.closed ? 'malformed list: data after the end of the list' : 'malformed list: not one JSON array');
    }
    if (this.depth > 0) this.carry += text.slice(start);
  }

  private element(tail: string, out: ListEntry[]): void {
    const text = (this.carry + tail).trim();
    this.carry = '';
    if (text === '') return;
    try {
      out.push({ value: JSON.parse(text) as unknown });
    } catch {
      throw new ListParseError('malformed list: an element that is not JSON');
    }
  }
}

/**
 * parseJsonList, keeping each element's text, and handing out the elements of each chunk received
 * together (one await a chunk rather than one an element). With `parse: false`, the lines after
 * the first (which is parsed, to tell the list's shape) are not parsed, only checked to hold one
 * JSON object or array: copying a million elements then costs no JSON.parse each.
 */
export async function* parseJsonBatches(
  source: AsyncIterable<Uint8Array>,
  { parse = true }: { parse?: boolean } = {},
): AsyncGenerator<ListEntry[]> {
  const decoder = new TextDecoder('utf-8');
  let mode = 'detect' as Mode;
  // Everything received while the shape is unknown, so that we can fall back to buffering.
  // Dropped as soon as the first element is out: from then on memory is one line.
  let head = '';
  let pending = '';
  let opened = false;
  let closed = false;
  let yielded = false;

  // Returns the element a line holds (`undefined` for none); switches to buffering when the body
  // turns out not to be line-per-element before anything was yielded.
  const take = (raw: string): ListEntry | undefined => {
    const line = raw.trim();
    if (line === '') return undefined;
    if (closed) return fail('data after the end of the list');
    if (!opened) {
      if (line === '[') {
        opened = true;
        return undefined;
      }
      return fail('not a line-per-element list');
    }
    if (line === ']') {
      closed = true;
      return undefined;
    }
    const text = line.endsWith(',') ? line.slice(0, -1) : line;
    if (!parse && yielded) {
      const first = text.charCodeAt(0);
      const last = text.charCodeAt(text.length - 1);
      // '{' … '}' or '[' … ']': a whole object or array (the server's JSON.stringify of one).
      if ((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d)) return { text };
      return fail('a line that is not one JSON object');
    }
    try {
      return { value: JSON.parse(text) as unknown, text };
    } catch {
      return fail('a line that is not one JSON value');
    }
  };
  const fail = (why: string): undefined => {
    if (yielded) throw new ListParseError(`malformed list: ${why}`);
    mode = 'buffer';
    return undefined;
  };

  // Lines are looked for in each received text itself, the unfinished line before it joined to its
  // first line only: searching `pending + text` over and over made V8 flatten that joined string
  // again at each search, a chunk's length for each of its lines (most of the time of a list).
  const lines = function* (text: string, final: boolean): Generator<ListEntry> {
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) >= 0) {
      const line = start === 0 ? pending + text.slice(0, nl) : text.slice(start, nl);
      if (start === 0) pending = '';
      const got = take(line);
      start = nl + 1;
      if (mode === 'buffer') return;
      if (got) {
        yielded = true;
        head = '';
        mode = 'lines';
        yield got;
      }
    }
    pending = start === 0 ? pending + text : text.slice(start);
    if (final && pending !== '') {
      const got = take(pending);
      pending = '';
      if (mode === 'buffer') return;
      if (got) {
        yielded = true;
        yield got;
      }
    }
  };

  let compact: CompactArray | undefined;
  /** An array whose first line holds more than its `[` (Flowise's one-line lists), or one found not to be line per element. */
  const toCompact = (text: string): string => {
    mode = 'compact';
    compact = new CompactArray();
    const all = head + text;
    head = '';
    pending = '';
    return all;
  };
  const feed = function* (text: string, final: boolean): Generator<ListEntry> {
    if (mode === 'detect') {
      const h = (head + text).trimStart();
      const nl = h.indexOf('\n');
      if (h.startsWith('[') && (nl === -1 ? h : h.slice(0, nl)).slice(1).trim() !== '') text = toCompact(text);
    } else if (mode === 'buffer' && !compact && head.trimStart().startsWith('[')) text = toCompact(text);
    if (mode === 'compact') {
      const out: ListEntry[] = [];
      compact!.feed(text, out);
      yield* out;
      return;
    }
    if (mode === 'buffer') {
      head += text;
      return;
    }
    if (!yielded) head += text;
    yield* lines(text, final);
  };

  // The elements a piece of text completes; those before a malformed line still go out first.
  const collect = (text: string, final: boolean): { batch: ListEntry[]; failure?: { error: unknown } } => {
    const batch: ListEntry[] = [];
    try {
      for (const entry of feed(text, final)) batch.push(entry);
    } catch (error) {
      return { batch, failure: { error } };
    }
    return { batch };
  };
  for await (const chunk of source) {
    const { batch, failure } = collect(decoder.decode(chunk, { stream: true }), false);
    if (batch.length > 0) yield batch;
    if (failure) throw failure.error;
  }
  const { batch, failure } = collect(decoder.decode(), true);
  if (batch.length > 0) yield batch;
  if (failure) throw failure.error;

  if (mode === 'compact') {
    if (!compact!.closed) throw new ListParseError(compact!.opened ? 'the list ended early (the connection was cut)' : 'the body is empty');
    return;
  }
  if (mode === 'buffer') {
    let body: unknown;
    try {
      body = JSON.parse(head) as unknown;
    } catch {
      throw new ListParseError('the body is not JSON');
    }
    head = '';
    yield listItems(body).map((value) => ({ value }));
    return;
  }
  if (!opened) throw new ListParseError('the body is empty');
  if (!closed) throw new ListParseError('the list ended early (the connection was cut)');
}

/** Elements of a list as bytes ready to write: each element framed by `prefix` and `suffix`. */
export interface FramedChunk {
  bytes: Buffer;
  count: number;
}

/**
 * The elements of a line-per-element list, each copied byte for byte between `prefix` and
 * `suffix` (an export line's head and `}\n`, or only `\n`), chunk by chunk as received: no
 * decoding to text, no parsing, no encoding again, which were most of the work of copying a
 * million messages. Each line is checked to hold one JSON object or array, as parseJsonBatches
 * does with `parse: false`. A list of another shape (Flowise's) goes through parseJsonBatches,
 * each element serialised by `text`.
 */
export async function* frameJsonLines(
  source: AsyncIterable<Uint8Array>,
  prefix: Buffer,
  suffix: Buffer,
  text: (entry: ListEntry) => string,
): AsyncGenerator<FramedChunk> {
  const iterator = source[Symbol.asyncIterator]();
  let rest: Buffer = Buffer.alloc(0);
  // The shape is told by the first line: `[` alone is ours; anything else is parsed.
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    rest = Buffer.concat([rest, next.value]);
    if (rest.indexOf(10) >= 0 || rest.length > 1) break;
  }
  const nl = rest.indexOf(10);
  const firstLine = rest.subarray(0, nl < 0 ? rest.length : nl).toString('latin1').trim();
  if (firstLine !== '[') {
    const head = rest;
    const replay = async function* () {
      yield head;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    };
    const framing = [prefix.toString(), suffix.toString()];
    for await (const batch of parseJsonBatches(replay())) {
      yield { bytes: Buffer.from(batch.map((entry) => `${framing[0]}${text(entry)}${framing[1]}`).join('')), count: batch.length };
    }
    return;
  }
  rest = rest.subarray(nl + 1);
  let closed = false;
  const fail = (why: string) => {
    throw new ListParseError(`malformed list: ${why}`);
  };
  /** The elements of the whole lines of `buf`, framed; and where the last whole line ends. */
  const frame = (buf: Buffer): { chunk?: FramedChunk; end: number } => {
    // Where each element starts and ends, then one buffer of them all, copied once.
    const spans: number[] = [];
    let start = 0;
    for (let end = buf.indexOf(10); end >= 0; start = end + 1, end = buf.indexOf(10, start)) {
      let last = end;
      while (last > start && (buf[last - 1] === 0x20 || buf[last - 1] === 0x0d)) last--;
      if (last === start) continue;
      if (closed) fail('data after the end of the list');
      if (last - start === 1 && buf[start] === 0x5d) {
        closed = true;
        continue;
      }
      if (buf[last - 1] === 0x2c) last--;
      const first = buf[start];
      const final = buf[last - 1];
      if (!((first === 0x7b && final === 0x7d) || (first === 0x5b && final === 0x5d))) fail('a line that is not one JSON object');
      spans.push(start, last);
    }
    const count = spans.length / 2;
    if (count === 0) return { end: start };
    let size = count * (prefix.length + suffix.length);
    for (let i = 0; i < spans.length; i += 2) size += spans[i + 1]! - spans[i]!;
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    // TypedArray#set of a view: Buffer#copy checks its arguments and makes the same view, at
    // twice the cost of a line's copy.
    const { buffer, byteOffset } = buf;
    for (let i = 0; i < spans.length; i += 2) {
      bytes.set(prefix, at);
      at += prefix.length;
      const length = spans[i + 1]! - spans[i]!;
      bytes.set(new Uint8Array(buffer, byteOffset + spans[i]!, length), at);
      at += length;
      bytes.set(suffix, at);
      at += suffix.length;
    }
    return { chunk: { bytes, count }, end: start };
  };
  for (;;) {
    const { chunk, end } = frame(rest);
    if (chunk) yield chunk;
    rest = rest.subarray(end);
    const next = await iterator.next();
    if (next.done) break;
    rest = rest.length ? Buffer.concat([rest, next.value]) : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
  }
  const { chunk } = frame(Buffer.concat([rest, Buffer.from('\n')]));
  if (chunk) yield chunk;
  if (!closed) throw new ListParseError('the list ended early (the connection was cut)');
}
