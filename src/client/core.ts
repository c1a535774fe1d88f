// The one request core of the client. Resource modules only describe paths, queries and
// normalisation; sending, retrying, deadlines, error mapping, list parsing and streaming all happen
// here. What carries a request is a transport (./transports.ts), chosen on the first request:
// our own HTTP/1.1 over node:net / node:tls by default, undici behind a proxy or over a given
// dispatcher, or a `request` function given by the caller (a service in the same process).
// Loading the client (and thus `chatflow --help`) loads none of them.
import type { Dispatcher } from 'undici';
import { API_PREFIX } from '../schema/paths.js';
import { ChatflowError, httpError } from './errors.js';
import { IngestStream } from './ingest-stream.js';
import { ListParseError, frameJsonLines, listItems, parseJsonBatches, type FramedChunk, type ListEntry } from './jsonStream.js';
import type { Answer, RequestFn, Transport } from './transport-types.js';
import { http1Transport, proxyConfigured, undiciTransport } from './transports.js';

export interface CoreOptions {
  /** Server root (`http://host:3000`); `/api/v1` is added unless the URL already ends with it. */
  baseUrl: string;
  apiKey?: string;
  /**
   * The deadline of a request, in ms (default 30000). A whole answer (JSON, text) must be in
   * within it, retries included. A streamed list must start within it, and then bring a whole
   * record, or at least STREAM_PROGRESS_BYTES, in every stretch of that length: a list still
   * flowing is never cut, a stalled or trickling one is. (The time the caller spends on each
   * record it was handed does not count.)
   */
  timeoutMs?: number;
  /** Retries of idempotent requests on connection errors and 502/503/504. Default 2. */
  retries?: number;
  /** First retry delay, doubled each time. Default 200. */
  retryDelayMs?: number;
  /** One line per request: `GET http://host/api/v1/variables 200 12ms`. Never holds the key. */
  onDebug?: (line: string) => void;
  /**
   * Send through undici over this dispatcher (custom TLS, pools, mocks...) instead of the
   * client's own HTTP/1.1 transport.
   * (An HTTP_PROXY or HTTPS_PROXY in the environment also sends through undici, NO_PROXY honoured.)
   */
  dispatcher?: Dispatcher;
  /**
   * Connect to this Unix socket instead of the URL's host and port (the URL still gives the Host
   * header and the path): a server behind a socket file (a proxy of its own, say). No proxy applies.
   */
  socketPath?: string;
  /**
   * Sends each request in place of a transport: a service in this process answers without a
   * socket (the CLI's embedded default). Retries, errors and list parsing stay the core's.
   */
  request?: RequestFn;
  /**
   * The most one ingest request carries; `ingest` splits a longer list. Default 900,000 bytes
   * (JSON) and 5,000 records: under a service's default body limit of 1 MiB. Raise it for a
   * service started with a larger `--body-limit`: fewer, larger transactions write faster.
   */
  batch?: BatchLimits;
}

export interface BatchLimits {
  maxBytes: number;
  maxItems: number;
}

export const DEFAULT_BATCH: Readonly<BatchLimits> = { maxBytes: 900_000, maxItems: 5_000 };

/**
 * A record already written as JSON, which an ingest sends as it is. An import reads each record
 * as text and holds that, not the parsed object (a fraction of the memory, and no second
 * JSON.stringify when the batch is sent).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

type QueryScalar = string | number | boolean;
export type QueryInput = Record<string, QueryScalar | readonly QueryScalar[] | null | undefined>;

const NDJSON_TYPE = 'application/x-ndjson';

/** Bytes that count as progress of a streamed list within one timeout (a record counts too). */
const STREAM_PROGRESS_BYTES = 64 * 1024;

export interface RequestInput {
  query?: QueryInput | undefined;
  /** The request's deadline: aborted, the call fails as timed out. */
  signal?: AbortSignal;
  /** Serialised as JSON. */
  body?: unknown;
  /** A body already serialised as JSON (text, or its UTF-8 bytes). */
  json?: string | Buffer;
  /** A body of NDJSON lines, sent as it comes (an ingest: see postStream). */
  stream?: AsyncIterable<Uint8Array>;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the server says JSON and it parses; else the text; undefined when empty. */
  body: unknown;
}

export interface ListResult<T> {
  items: T[];
  /** From the X-Total-Count header (our service) or Flowise's `{data, total}`, when given. */
  total?: number;
  /** The total is a lower bound: the list goes on past the page (what more it holds was not read). */
  atLeast?: boolean;
}

export type Normalise<T> = (item: unknown) => T;

/** The methods a request may be sent again by (a retry). */
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** Errors of a connection lost before the answer began. */
const CONNECTION_LOST: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const RETRY_STATUSES = new Set([502, 503, 504]);
const RETRY_CODES = new Set(['ECONNREFUSED', ...CONNECTION_LOST]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
/** Sort parameters go out upper case: Flowise honours only the exact `DESC`. */
const UPPERCASE_PARAMS = new Set(['order', 'sortOrder']);

/** Arrays repeat the parameter, undefined/null are skipped, booleans are `true`/`false`. */
export function buildQuery(query: QueryInput | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? (value as readonly QueryScalar[]) : [value as QueryScalar | null | undefined];
    for (const v of values) {
      if (v === undefined || v === null) continue;
      const s = String(v);
      params.append(key, UPPERCASE_PARAMS.has(key) ? s.toUpperCase() : s);
    }
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Validates the base URL and returns the server root and the API root (`.../api/v1`). */
export function resolveBaseUrl(baseUrl: string): { root: string; api: string } {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ChatflowError('network', `invalid server URL '${baseUrl}': expected http(s)://host:port`, {
      code: 'ERR_INVALID_URL',
    });
  }
  url.search = '';
  url.hash = '';
  const base = url.toString().replace(/\/+$/, '');
  const root = base.replace(/\/api\/v1$/i, '');
  return { root, api: `${root}${API_PREFIX}` };
}

/** A URL fit for messages and debug lines: no user:password. */
function displayUrl(url: string): string {
  return url.replace(/^(https?:\/\/)[^/@]*@/i, '$1');
}

function errorCode(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects fail with an AggregateError; undici wraps some errors in `cause`.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  if (e.cause) return errorCode(e.cause);
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const v = headers[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

export class HttpCore {
  /** The server root as given (no `/api/v1`), for messages. */
  readonly serverUrl: string;
  /** The API root, ending with `/api/v1`. */
  readonly apiUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly onDebug: ((line: string) => void) | undefined;
  private readonly givenDispatcher: Dispatcher | undefined;
  private readonly socketPath: string | undefined;
  private readonly givenRequest: RequestFn | undefined;
  readonly batch: Readonly<BatchLimits>;
  /** Whether a request that changes data (not GET or HEAD) has been answered 2xx. */
  changedData = false;
  private transport: Promise<Transport> | undefined;

  constructor(opts: CoreOptions) {
    const { root, api } = resolveBaseUrl(opts.baseUrl);
    this.serverUrl = root;
    this.apiUrl = api;
    this.apiKey = opts.apiKey || undefined;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retries = Math.max(0, opts.retries ?? 2);
    this.retryDelayMs = opts.retryDelayMs ?? 200;
    this.onDebug = opts.onDebug;
    this.givenDispatcher = opts.dispatcher;
    this.socketPath = opts.socketPath;
    this.givenRequest = opts.request;
    this.batch = opts.batch ?? DEFAULT_BATCH;
  }

  // ------------------------------------------------------------------ public helpers

  /** Any call, without throwing on 4xx/5xx (for `chatflow api`). `path` is below /api/v1. */
  async raw(method: string, apiPath: string, body?: unknown, query?: QueryInput): Promise<RawResponse> {
    const p = apiPath.replace(/^\/api\/v1(?=\/|$)/i, '') || '/';
    const verb = method.toUpperCase();
    const rel = p.startsWith('/') ? p : `/${p}`;
    const signal = this.deadline();
    const res = await this.send(verb, rel, { query, body, signal });
    const text = await this.readText(res, verb, rel, signal);
    const headers = res.headers;
    let parsed: unknown = text === '' ? undefined : text;
    if (text !== '' && header(headers, 'content-type').includes('json')) {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        // keep the text: `chatflow api` shows what the server said
      }
    }
    return { status: res.statusCode, headers, body: parsed };
  }

  /** A JSON call: the parsed body (undefined when empty), or a ChatflowError. */
  async json<T>(method: string, apiPath: string, input: RequestInput = {}): Promise<T> {
    const { text } = await this.ok(method, apiPath, input);
    return this.parse(text, method, apiPath) as T;
  }

  /** A text call (ping): the body as text, whatever its content type. */
  async text(apiPath: string): Promise<string> {
    const signal = this.deadline();
    const res = await this.send('GET', apiPath, { signal });
    if (res.statusCode < 200 || res.statusCode >= 300) throw await this.errorFrom(res, 'GET', apiPath);
    return this.readText(res, 'GET', apiPath, signal);
  }

  /** A whole list: an array, or `{data, total}`; total also from X-Total-Count. */
  async list<T>(apiPath: string, query?: QueryInput, normalise?: Normalise<T>): Promise<ListResult<T>> {
    const { res, text } = await this.ok('GET', apiPath, { query });
    const body = this.parse(text, 'GET', apiPath);
    let items: unknown[];
    try {
      items = listItems(body);
    } catch {
      throw this.invalid('GET', apiPath, 'is not a list');
    }
    const result: ListResult<T> = { items: normalise ? items.map(normalise) : (items as T[]) };
    const headerTotal = header(res.headers, 'x-total-count');
    const bodyTotal = (body as { total?: unknown }).total;
    if (headerTotal !== '' && Number.isFinite(Number(headerTotal))) result.total = Number(headerTotal);
    else if (typeof bodyTotal === 'number') result.total = bodyTotal;
    return result;
  }

  /** A list element by element as the bytes arrive (constant memory on our service's streams). */
  async *stream<T>(apiPath: string, query?: QueryInput, normalise?: Normalise<T>): AsyncGenerator<T> {
    for await (const batch of this.streamBatches(apiPath, query, normalise)) yield* batch;
  }

  /**
   * stream, the elements of each chunk received together: one await a chunk, not one an element
   * (a million-row list spent more time passing elements along than parsing them).
   */
  async *streamBatches<T>(apiPath: string, query?: QueryInput, normalise?: Normalise<T>): AsyncGenerator<T[]> {
    for await (const batch of this.batches(apiPath, query, true)) {
      yield batch.map(({ value }) => (normalise ? normalise(value) : (value as T)));
    }
  }

  /**
   * Each element's JSON text, for copying a list, a received chunk's worth at a time: from a
   * line-per-element list (our service's streams, whose elements are in normal form already) the
   * lines as received, not parsed (only the first is, and each is checked to be one whole object);
   * from any other list (Flowise's) each element normalised and serialised.
   */
  async *streamTexts(apiPath: string, query?: QueryInput, normalise?: Normalise<unknown>): AsyncGenerator<string[]> {
    for await (const batch of this.batches(apiPath, query, false)) {
      yield batch.map(({ value, text }) => text ?? JSON.stringify(normalise ? normalise(value) : value));
    }
  }

  /**
   * A list's elements copied as bytes, each between `prefix` and `suffix` (see frameJsonLines):
   * from our service the lines as received; from any other list (Flowise's) each element
   * normalised and serialised.
   */
  async *streamFramed(apiPath: string, query: QueryInput | undefined, normalise: Normalise<unknown> | undefined, prefix: Buffer, suffix: Buffer): AsyncGenerator<FramedChunk> {
    const text = ({ value, text }: ListEntry) => text ?? JSON.stringify(normalise ? normalise(value) : value);
    yield* this.listBody(apiPath, query, (body) => frameJsonLines(body, prefix, suffix, text));
  }

  private batches(apiPath: string, query: QueryInput | undefined, parse: boolean): AsyncGenerator<ListEntry[]> {
    return this.listBody(apiPath, query, (body) => parseJsonBatches(body, { parse }));
  }

  /** A list's body read by `read`, with the stall timeout and errors of a list. */
  private async *listBody<T>(apiPath: string, query: QueryInput | undefined, read: (body: AsyncIterable<Uint8Array>) => AsyncGenerator<T>): AsyncGenerator<T> {
    const res = await this.send('GET', apiPath, { query });
    let finished = false;
    // Armed only while waiting for the server (CoreOptions.timeoutMs): a stall ends the body.
    let stalled = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        res.body.destroy();
      }, this.timeoutMs);
    };
    let bytes = 0;
    const counted = async function* (body: AsyncIterable<Uint8Array>) {
      for await (const chunk of body) {
        bytes += chunk.length;
        if (bytes >= STREAM_PROGRESS_BYTES) {
          bytes = 0;
          arm();
        }
        yield chunk;
      }
    };
    try {
      await this.check(res, 'GET', apiPath);
      const batches = read(counted(res.body));
      try {
        for (;;) {
          arm();
          const next = await batches.next();
          clearTimeout(timer);
          if (next.done) break;
          bytes = 0;
          yield next.value;
        }
      } catch (err) {
        if (stalled) throw this.timeoutError('GET', apiPath, { stalled: true });
        if (err instanceof ListParseError) throw this.invalid('GET', apiPath, `is not a readable list (${err.message})`);
        throw this.mapStreamError(err, 'GET', apiPath);
      }
      finished = true;
    } finally {
      clearTimeout(timer);
      // A consumer that stops early must not leave the connection half-read.
      if (!finished && !res.body.destroyed) res.body.destroy();
    }
  }

  /** A call answering `{affected}` (Flowise: `{raw: [], affected}`). */
  async affected(method: string, apiPath: string, input: RequestInput = {}): Promise<{ affected: number }> {
    const body = await this.json<unknown>(method, apiPath, input);
    const affected = (body as { affected?: unknown } | undefined)?.affected;
    if (typeof affected !== 'number') throw this.invalid(method, apiPath, 'has no affected count');
    return { affected };
  }

  /**
   * POSTs many items (objects, or JsonText) as JSON arrays within `batch` (CoreOptions), and sums
   * the `affected` counts.
   */
  async postBatches(apiPath: string, items: readonly unknown[]): Promise<{ affected: number }> {
    const { maxBytes, maxItems } = this.batch;
    let affected = 0;
    let batch: string[] = [];
    let size = 2;
    const flush = async () => {
      if (batch.length === 0) return;
      // Written as bytes, outside the JavaScript heap: a batch as one string (megabytes, two
      // bytes a character once a record holds any non-Latin-1 text) was garbage only a full
      // collection frees, and an import of a million records piled up hundreds of MB of them.
      const json = Buffer.allocUnsafe(size);
      json[0] = 0x5b; // [
      let at = 1;
      for (const text of batch) {
        if (at > 1) json[at++] = 0x2c; // ,
        at += json.write(text, at);
      }
      json[at++] = 0x5d; // ]
      batch = [];
      size = 2;
      // (`size` counted a comma after each record: the last is not written.)
      affected += (await this.affected('POST', apiPath, { json: json.subarray(0, at) })).affected;
    };
    for (const item of items) {
      const s = item instanceof JsonText ? item.text : JSON.stringify(item);
      // Bytes, as the server's body limit counts them (a CJK character is three).
      const bytes = Buffer.byteLength(s);
      if (batch.length > 0 && (size + bytes + 1 > maxBytes || batch.length >= maxItems)) await flush();
      batch.push(s);
      size += bytes + 1;
    }
    await flush();
    return { affected };
  }

  /**
   * POSTs NDJSON lines to our service's ingest route as they come, in one request, and answers its
   * `affected` count. The deadline (CoreOptions.timeoutMs) runs only while the request waits for
   * the server (to take more of the body, then to answer), not for `chunks` to bring the next.
   */
  async postStream(apiPath: string, chunks: AsyncIterable<Uint8Array>): Promise<{ affected: number }> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), this.timeoutMs);
    };
    const paced = async function* () {
      for await (const chunk of chunks) {
        arm();
        yield chunk;
        clearTimeout(timer);
      }
      arm();
    };
    arm();
    try {
      const res = await this.send('POST', apiPath, { stream: paced(), signal: controller.signal });
      await this.check(res, 'POST', apiPath);
      const body = this.parse(await this.readText(res, 'POST', apiPath, controller.signal), 'POST', apiPath);
      const affected = (body as { affected?: unknown } | undefined)?.affected;
      if (typeof affected !== 'number') throw this.invalid('POST', apiPath, 'has no affected count');
      return { affected };
    } finally {
      clearTimeout(timer);
    }
  }

  /** An ingest streamed to `apiPath` (IngestStream), sent by postStream. */
  ingestStream(apiPath: string): IngestStream {
    return new IngestStream((chunks) => this.postStream(apiPath, chunks));
  }

  async close(): Promise<void> {
    const pending = this.transport;
    this.transport = undefined;
    await (await pending?.catch(() => undefined))?.close();
  }

  // ------------------------------------------------------------------ internals

  /**
   * The given `request`; else undici over a given dispatcher, or when a proxy is configured (not
   * for a Unix socket); else our own HTTP/1.1 (transports.ts).
   */
  private sender(): Promise<RequestFn> {
    if (this.givenRequest) return Promise.resolve(this.givenRequest);
    this.transport ??=
      this.givenDispatcher || (!this.socketPath && proxyConfigured())
        ? undiciTransport({ dispatcher: this.givenDispatcher, connectTimeoutMs: this.timeoutMs })
        : Promise.resolve(http1Transport({ socketPath: this.socketPath }));
    return this.transport.then((t) => t.request);
  }

  private debug(line: string): void {
    this.onDebug?.(this.redact(line));
  }

  /** Belt and braces: the key is never put in a message, and is cut out should a server echo it. */
  private redact(text: string): string {
    return this.apiKey && text.includes(this.apiKey) ? text.split(this.apiKey).join('<redacted>') : text;
  }

  private scrub(err: ChatflowError): ChatflowError {
    const message = this.redact(err.message);
    if (message !== err.message) err.message = message;
    if (err.serverMessage !== undefined) Object.assign(err, { serverMessage: this.redact(err.serverMessage) });
    return err;
  }

  /** Sends with retries; the caller must consume the body of the response it gets. */
  private async send(method: string, apiPath: string, input: RequestInput): Promise<Answer> {
    const request = await this.sender();
    const url = `${this.apiUrl}${apiPath}${buildQuery(input.query)}`;
    const shown = displayUrl(url);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: string | Buffer | AsyncIterable<Uint8Array> | undefined = input.json;
    if (body === undefined && input.body !== undefined) body = JSON.stringify(input.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (input.stream) {
      body = input.stream;
      headers['content-type'] = NDJSON_TYPE;
    }
    const retryable = IDEMPOTENT.has(method);

    for (let attempt = 0; ; attempt++) {
      // (Date, not performance: the global `performance` loads perf_hooks, a cost to every start.)
      const started = Date.now();
      const elapsed = () => `${Date.now() - started}ms`;
      const canRetry = retryable && attempt < this.retries;
      const delay = this.retryDelayMs * 2 ** attempt;
      const retryNote = `(retry ${attempt + 1}/${this.retries} in ${delay}ms)`;
      let res: Answer;
      try {
        res = await request(url, {
          method,
          headers,
          body,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          ...(input.signal ? { signal: input.signal } : {}),
        });
      } catch (err) {
        if (input.signal?.aborted) throw this.timeoutError(method, apiPath);
        const code = errorCode(err);
        if (canRetry && code !== undefined && RETRY_CODES.has(code)) {
          this.debug(`${method} ${shown} ${code} ${elapsed()} ${retryNote}`);
          await sleep(delay);
          continue;
        }
        this.debug(`${method} ${shown} ${code ?? 'ERROR'} ${elapsed()}`);
        throw this.networkError(err, method, apiPath);
      }
      if (canRetry && RETRY_STATUSES.has(res.statusCode)) {
        this.debug(`${method} ${shown} ${res.statusCode} ${elapsed()} ${retryNote}`);
        await res.body.dump().catch(() => undefined);
        await sleep(delay);
        continue;
      }
      this.debug(`${method} ${shown} ${res.statusCode} ${elapsed()}`);
      if (res.statusCode < 300 && method !== 'GET' && method !== 'HEAD') this.changedData = true;
      return res;
    }
  }

  /** Sends and reads a successful JSON answer's text, or throws the matching ChatflowError. */
  private async ok(method: string, apiPath: string, input: RequestInput) {
    const signal = this.deadline();
    const res = await this.send(method, apiPath, { ...input, signal });
    await this.check(res, method, apiPath);
    return { res, text: await this.readText(res, method, apiPath, signal) };
  }

  /** A whole answer's deadline (CoreOptions.timeoutMs), from the first try to the last byte. */
  private deadline(): AbortSignal {
    return AbortSignal.timeout(this.timeoutMs);
  }

  private async readText(res: Answer, method: string, apiPath: string, signal?: AbortSignal): Promise<string> {
    try {
      return await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw this.timeoutError(method, apiPath);
      throw this.mapStreamError(err, method, apiPath);
    }
  }

  /** Throws (having consumed the body) unless the answer is a 2xx that is not an HTML page. */
  private async check(res: Answer, method: string, apiPath: string): Promise<void> {
    if (res.statusCode < 200 || res.statusCode >= 300) throw await this.errorFrom(res, method, apiPath);
    // A real Flowise answers a route it lacks with its UI page, status 200.
    if (header(res.headers, 'content-type').includes('text/html')) {
      await res.body.dump().catch(() => undefined);
      throw new ChatflowError('unsupported', `this server does not support ${method} ${apiPath}`, { method, path: apiPath, reason: 'answered with a web page' });
    }
  }

  private async errorFrom(res: Answer, method: string, apiPath: string): Promise<ChatflowError> {
    let text = '';
    try {
      text = await res.body.text();
    } catch {
      // the status says enough
    }
    const contentType = header(res.headers, 'content-type');
    if (res.statusCode >= 300 && res.statusCode < 400) {
      return new ChatflowError('http', `unexpected redirect (HTTP ${res.statusCode}) on ${method} ${apiPath}`, {
        status: res.statusCode,
        method,
        path: apiPath,
        reason: 'redirect',
      });
    }
    return this.scrub(
      httpError({ status: res.statusCode, contentType, text, method, path: apiPath, sentKey: this.apiKey !== undefined }),
    );
  }

  private parse(text: string, method: string, apiPath: string): unknown {
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.invalid(method, apiPath, 'is not JSON');
    }
  }

  private invalid(method: string, apiPath: string, what: string): ChatflowError {
    return new ChatflowError('invalid-response', `the server's answer to ${method} ${apiPath} ${what}`, { method, path: apiPath, reason: what });
  }

  /** An error while reading a body that had started (timeouts between chunks, cut connections). */
  private mapStreamError(err: unknown, method: string, apiPath: string): unknown {
    if (err instanceof ChatflowError) return err;
    const mapped = this.networkError(err, method, apiPath);
    if (mapped.kind !== 'network') return mapped;
    const why = mapped.code ? ` (${mapped.code})` : '';
    const where = displayUrl(this.serverUrl);
    return this.scrub(
      new ChatflowError('network', `lost the connection to ${where} while reading ${method} ${apiPath}${why}`, {
        method,
        path: apiPath,
        server: where,
        midway: true,
        reason: mapped.reason ?? 'the connection was closed',
        ...(mapped.code ? { code: mapped.code } : {}),
      }),
    );
  }

  /** The deadline passed: no whole answer in time, or (`stalled`) a streamed list that stopped coming. */
  private timeoutError(method: string, apiPath: string, opts: { code?: string; stalled?: boolean } = {}): ChatflowError {
    const where = displayUrl(this.serverUrl);
    const secs = this.timeoutMs >= 1000 ? `${+(this.timeoutMs / 1000).toFixed(1)}s` : `${this.timeoutMs}ms`;
    const what = opts.stalled ? `stalled on ${method} ${apiPath}: no record in ${secs}` : `did not answer ${method} ${apiPath} within ${secs}`;
    return new ChatflowError('timeout', `${where} ${what} (timed out)`, {
      method,
      path: apiPath,
      server: where,
      timeoutMs: this.timeoutMs,
      ...(opts.stalled ? { midway: true } : {}),
      ...(opts.code ? { code: opts.code } : {}),
    });
  }

  private networkError(err: unknown, method: string, apiPath: string): ChatflowError {
    const code = errorCode(err);
    const where = displayUrl(this.serverUrl);
    const opts = { method, path: apiPath, server: where, ...(code ? { code } : {}) };
    if (code && TIMEOUT_CODES.has(code)) return this.timeoutError(method, apiPath, { code });
    let why: string;
    switch (code) {
      case 'ECONNREFUSED':
        return new ChatflowError('network', `cannot reach ${where} (connection refused)`, { ...opts, reason: 'connection refused' });
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        why = 'host not found';
        break;
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
      case 'UND_ERR_CLOSED':
        why = 'the connection was closed';
        break;
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        why = 'host unreachable';
        break;
      default: {
        const message = err instanceof Error ? err.message.replace(/\s+/g, ' ').trim() : '';
        why = [code, message].filter(Boolean).join(': ') || 'unknown error';
      }
    }
    return this.scrub(new ChatflowError('network', `cannot reach ${where} (${why})`, { ...opts, reason: why }));
  }
}
