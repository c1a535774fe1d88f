// HTTP/1.1 framing for the client's own transport (transports.ts): a request's head, and where an
// answer's head and body begin and end in the bytes as they arrive (RFC 9112).
//
// Why not node:http: loading it and sending its first request cost a one-off command some 4 ms
// more than a request written over node:net, on every remote command. What a client of a JSON API needs of HTTP/1.1 is small, and
// it is all here; anything outside it is refused as a malformed answer rather than guessed at.
//
// Errors carry llhttp's codes (HPE_…), as node:http's parser errors do: the core reports them as
// it reported node:http's, `cannot reach <server> (HPE_…: Parse Error: …)`.

/** The most bytes an answer's head (or its trailers) may take. */
const MAX_HEAD = 64 * 1024;
/** The longest chunk-size line (extensions included). */
const MAX_CHUNK_LINE = 4096;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may not hold (controls but tab), in what we send and what we read. */
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: |$)/;
/**
 * Headers node:http keeps the first of when repeated (the others it joins with ", "): callers
 * read headers as node:http gave them, and `chatflow api` prints them.
 */
const SINGLE = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host',
  'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards',
  'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent',
]);
/** Methods node:http sends `content-length: 0` for when they carry no body. */
const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

export type AnswerHeaders = Record<string, string | string[]>;

const parseError = (code: string, what: string) => Object.assign(new Error(`Parse Error: ${what}`), { code });

/**
 * A request's head. `host` is the URL's (port included when not the default); a body whole in
 * memory is sent with its length, a streamed one (`bodyBytes` 'chunked') in chunks. Throws, as
 * node:http does, on a header that would split the head.
 */
export function requestHead(method: string, target: string, host: string, headers: Record<string, string>, bodyBytes: number | 'chunked' | undefined): string {
  let head = `${method} ${target} HTTP/1.1\r\n`;
  for (const name in headers) {
    const value = headers[name]!;
    if (!TOKEN.test(name)) throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
    if (BAD_VALUE.test(value)) throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
    head += `${name}: ${value}\r\n`;
  }
  head += `Host: ${host}\r\nConnection: keep-alive\r\n`;
  const length = bodyBytes ?? (BODILESS.has(method) ? undefined : 0);
  if (length === 'chunked') head += 'Transfer-Encoding: chunked\r\n';
  else if (length !== undefined) head += `Content-Length: ${length}\r\n`;
  return `${head}\r\n`;
}

export interface AnswerEvents {
  /** The final head (interim 1xx answers are skipped). */
  head(statusCode: number, headers: AnswerHeaders): void;
  /** A piece of the body: a view of the bytes received, not a copy. */
  body(piece: Buffer): void;
}

const HEAD = 0;
const LENGTH = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILERS = 5;
const UNTIL_CLOSE = 6;
const DONE = 7;

/** Reads one answer from a connection's bytes, fed in as they come, however they are split. */
export class AnswerParser {
  private state = HEAD;
  /** The start of a head not yet whole. */
  private pending: Buffer | undefined;
  /** Bytes left of a body with a length, or of the current chunk. */
  private remaining = 0;
  /** The start of a chunk-size or trailer line not yet whole. */
  private partial = '';
  private trailerBytes = 0;
  /** Whether the connection may carry another request once this answer is done. */
  keepAlive = false;

  constructor(
    private readonly method: string,
    private readonly events: AnswerEvents,
  ) {}

  /** Whether the whole answer is in. */
  get done(): boolean {
    return this.state === DONE;
  }

  /** Takes the next bytes; throws (a parse error) on a malformed answer. */
  execute(data: Buffer): void {
    let at = 0;
    while (at < data.length) {
      switch (this.state) {
        case HEAD:
          at = this.readHead(data, at);
          break;
        case LENGTH:
        case CHUNK_DATA: {
          const n = Math.min(this.remaining, data.length - at);
          this.events.body(data.subarray(at, at + n));
          at += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = this.state === LENGTH ? DONE : CHUNK_END;
          break;
        }
        case CHUNK_SIZE:
        case CHUNK_END:
        case TRAILERS: {
          const end = data.indexOf(10, at); // \n
          if (end < 0) {
            this.partial += data.toString('latin1', at);
            if (this.partial.length > (this.state === TRAILERS ? MAX_HEAD : MAX_CHUNK_LINE)) throw parseError('HPE_HEADER_OVERFLOW', 'chunk line too long');
            return;
          }
          const line = this.partial + data.toString('latin1', at, end);
          this.partial = '';
          at = end + 1;
          if (!line.endsWith('\r')) throw parseError('HPE_STRICT', 'expected CRLF');
          this.line(line.slice(0, -1));
          break;
        }
        case UNTIL_CLOSE:
          this.events.body(at === 0 ? data : data.subarray(at));
          return;
        default:
          // Bytes after the answer, unasked for: the connection is not to be trusted with another.
          this.keepAlive = false;
          return;
      }
    }
  }

  /**
   * The connection ended. True when that ends the answer (a body read until close); else the
   * answer was cut short.
   */
  end(): boolean {
    if (this.state === UNTIL_CLOSE) this.state = DONE;
    return this.state === DONE;
  }

  /** A whole line of the chunked framing: a chunk's size, the CRLF after its data, a trailer. */
  private line(line: string): void {
    if (this.state === CHUNK_SIZE) {
      // Extensions (`;name=value`) and the whitespace some servers pad with are ignored.
      const semi = line.indexOf(';');
      const hex = (semi < 0 ? line : line.slice(0, semi)).replace(/[ \t]+$/, '');
      const size = /^[0-9a-fA-F]{1,16}$/.test(hex) ? parseInt(hex, 16) : NaN;
      if (!Number.isSafeInteger(size)) throw parseError('HPE_INVALID_CHUNK_SIZE', 'invalid character in chunk size');
      this.state = size === 0 ? TRAILERS : CHUNK_DATA;
      this.remaining = size;
    } else if (this.state === CHUNK_END) {
      if (line !== '') throw parseError('HPE_STRICT', 'expected CRLF after chunk data');
      this.state = CHUNK_SIZE;
    } else if (line === '') {
      this.state = DONE;
    } else if ((this.trailerBytes += line.length + 2) > MAX_HEAD) {
      throw parseError('HPE_HEADER_OVERFLOW', 'trailers too long');
    }
  }

  /** Reads up to the end of a head; returns where in `data` it stopped. */
  private readHead(data: Buffer, at: number): number {
    let buf = data;
    let start = at;
    let from = at;
    const before = this.pending?.length ?? 0;
    if (this.pending) {
      buf = Buffer.concat([this.pending, data.subarray(at)]);
      start = 0;
      from = Math.max(0, before - 3);
    }
    const end = buf.indexOf('\r\n\r\n', from, 'latin1');
    if (end < 0 || end - start > MAX_HEAD) {
      if (buf.length - start > MAX_HEAD) throw parseError('HPE_HEADER_OVERFLOW', 'header overflow');
      // A copy: the head is small, and a view would hold the whole received buffer.
      this.pending = Buffer.from(buf.subarray(start));
      return data.length;
    }
    this.pending = undefined;
    this.onHead(buf.toString('latin1', start, end));
    return at + (end + 4 - start - before);
  }

  private onHead(text: string): void {
    const lines = text.split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) throw parseError('HPE_INVALID_CONSTANT', 'expected HTTP/1.x status line');
    const statusCode = Number(status[2]);
    const headers: AnswerHeaders = {};
    const lengths: string[] = [];
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      // (A line starting with whitespace, an obsolete folded value, fails the token test too.)
      if (colon <= 0 || !TOKEN.test(name)) throw parseError('HPE_INVALID_HEADER_TOKEN', 'invalid header name');
      const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
      if (BAD_VALUE.test(value)) throw parseError('HPE_INVALID_HEADER_TOKEN', 'invalid header value char');
      if (name === 'content-length') lengths.push(...value.split(','));
      const seen = headers[name];
      if (seen === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
      else if (Array.isArray(seen)) seen.push(value);
      else if (!SINGLE.has(name)) headers[name] = `${seen}, ${value}`;
    }
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (statusCode < 200) {
      if (statusCode === 101) throw parseError('HPE_INVALID_CONSTANT', 'unexpected protocol switch');
      return;
    }
    const tokens = (name: string) => {
      const v = headers[name];
      return typeof v === 'string' ? v.toLowerCase().split(',').map((t) => t.trim()) : [];
    };
    const http10 = status[1] === '0';
    const connection = tokens('connection');
    this.keepAlive = http10 ? connection.includes('keep-alive') : !connection.includes('close');
    // RFC 9112 §6.3, in its order.
    const te = tokens('transfer-encoding');
    if (this.method === 'HEAD' || statusCode === 204 || statusCode === 304) {
      this.state = DONE;
    } else if (headers['transfer-encoding'] !== undefined) {
      this.state = te[te.length - 1] === 'chunked' ? CHUNK_SIZE : UNTIL_CLOSE;
      // Both lengths given, or chunked from an HTTP/1.0 server: the framing is suspect; close after.
      if (lengths.length > 0 || http10 || this.state === UNTIL_CLOSE) this.keepAlive = false;
    } else if (lengths.length > 0) {
      const length = lengths[0]!.trim();
      if (!/^\d{1,15}$/.test(length)) throw parseError('HPE_INVALID_CONTENT_LENGTH', 'invalid content-length');
      if (lengths.some((l) => l.trim() !== length)) throw parseError('HPE_UNEXPECTED_CONTENT_LENGTH', 'conflicting content-length');
      this.remaining = Number(length);
      this.state = this.remaining === 0 ? DONE : LENGTH;
    } else {
      this.state = UNTIL_CLOSE;
      this.keepAlive = false;
    }
    this.events.head(statusCode, headers);
  }
}
