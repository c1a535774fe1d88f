// How the request core's requests reach a server. A transport is only a `request` function
// (RequestFn) and a `close`: retries, deadlines, error mapping and list parsing stay in the core.
//
// - http1Transport: HTTP/1.1 spoken over node:net (node:tls for https) by our own framing
//   (./http1.ts), the default; a Unix socket (`socketPath`) is reached the same way. node:http
//   cost every command that sends a request some 4 ms more to load and to send its first
//   request; the framing a JSON API needs is small, and undici's (a 400 KB library compiling a
//   WebAssembly parser) is more still.
// - undiciTransport: undici's request(), when it earns its place: an HTTP(S)_PROXY in the
//   environment (its EnvHttpProxyAgent honours NO_PROXY too) or a `dispatcher` given by a library
//   user (custom TLS, mocks, pools). undici is imported only then.
// - A service in the same process passes its own `request` (server/in-process.ts).
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import type { Answer, AnswerBody, RequestFn, RequestOptions, Transport } from './transport-types.js';
import { AnswerParser, requestHead } from './http1.js';

/** The codes undici gives its timeouts: a caller sees the same `code` whichever transport sent. */
const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
const BODY_TIMEOUT = 'UND_ERR_BODY_TIMEOUT';

const timeoutError = (code: string, what: string, ms: number) =>
  Object.assign(new Error(`${what} timeout (${ms} ms)`), { code });

/** Whether the environment names a proxy (then requests go through undici's EnvHttpProxyAgent). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy);
}

const ignore = () => {};
const connectionError = (message: string) => Object.assign(new Error(message), { code: 'ECONNRESET' });
const abortError = () => Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });

/**
 * How long an idle connection may wait for its next request: a second less than the server's
 * `keep-alive: timeout=N` says, so that it is not reused just as the server closes it (node:http's
 * agent does the same); -1 when that leaves nothing; 0 (no limit) when the server does not say.
 */
function idleLimit(hint: string | string[] | undefined): number {
  const seconds = typeof hint === 'string' ? /^timeout=(\d+)/.exec(hint)?.[1] : undefined;
  if (seconds === undefined) return 0;
  return Number(seconds) > 1 ? (Number(seconds) - 1) * 1000 : -1;
}

/**
 * One request and its answer on one connection; the answer's body too. The connection goes back
 * to the pool once the whole answer is in (read or not); it is destroyed on any error, on a body
 * left unread (destroy), or when the answer says `connection: close`.
 */
class Exchange implements AnswerBody {
  private readonly parser: AnswerParser;
  /** Body pieces received and not yet read. */
  private readonly chunks: Buffer[] = [];
  private answered = false;
  /** The connection is let go: given back, or destroyed. */
  private over = false;
  private paused = false;
  private failed: Error | undefined;
  /** Read to its end, or destroyed. */
  private finished = false;
  private wake: (() => void) | undefined;
  private headersTimer: NodeJS.Timeout | undefined;
  private readonly headersTimeout: number;
  /** How long the server keeps the connection open between requests, when it says (-1: too short to reuse). */
  private idleMs = 0;
  // (Not the request's options: they hold its body, which an import's batches need not keep.)
  private readonly bodyTimeout: number;
  private readonly signal: AbortSignal | undefined;
  /** The request is written out (`written` was called). */
  private sent = false;
  /** The answer ended reusable before the request was written out (a server answering early). */
  private reuseWhenSent = false;

  constructor(
    private readonly socket: Socket,
    method: string,
    options: RequestOptions,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (err: Error) => void,
    /** Takes the connection back for another request, for at most `idleMs` (0: no limit). */
    private readonly giveBack: (socket: Socket, idleMs: number) => void,
  ) {
    this.parser = new AnswerParser(method, {
      head: (statusCode, headers) => {
        clearTimeout(this.headersTimer);
        this.answered = true;
        this.idleMs = idleLimit(headers['keep-alive']);
        this.resolve({ statusCode, headers, body: this });
      },
      body: (piece) => this.chunks.push(piece),
    });
    this.headersTimeout = options.headersTimeout;
    this.armHeaders();
    socket.on('data', this.onData).on('end', this.onEnd).on('error', this.fail).on('close', this.onClose);
    this.bodyTimeout = options.bodyTimeout;
    this.signal = options.signal;
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onData = (data: Buffer) => {
    try {
      this.parser.execute(data);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (this.parser.done) this.letGo(this.parser.keepAlive);
    else if (!this.wake && this.chunks.length > 0 && !this.paused) {
      // Nobody waits for these: the connection waits for the reader (a pager, a slow disk).
      this.paused = true;
      this.socket.pause();
    }
    this.notify();
  };

  private readonly onEnd = () => {
    if (this.parser.end()) this.letGo(false);
    else this.fail(connectionError(this.answered ? 'aborted' : 'socket hang up'));
    this.notify();
  };

  private readonly onClose = () => this.fail(connectionError(this.answered ? 'aborted' : 'socket hang up'));

  private readonly onAbort = () => this.fail(abortError());

  private readonly fail = (err: Error) => {
    if (this.over) return;
    this.letGo(false);
    this.failed = err;
    if (!this.answered) this.reject(err);
    this.notify();
  };

  /** Ends this exchange's hold on the connection: back to the pool, or destroyed. */
  private letGo(reuse: boolean): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.headersTimer);
    this.signal?.removeEventListener('abort', this.onAbort);
    const socket = this.socket;
    socket.off('data', this.onData).off('end', this.onEnd).off('error', this.fail).off('close', this.onClose);
    // (An error the connection may still raise has nobody to tell.)
    socket.on('error', ignore);
    if (!reuse || this.idleMs < 0) socket.destroy();
    // A server may answer before it has read the whole request (a 413 to a batch too large): the
    // connection serves another once the rest is written, as node:http's agent has it.
    else if (!this.sent) this.reuseWhenSent = true;
    else this.giveBack(socket.off('error', ignore), this.idleMs);
  }

  /** The answer's headers are due within headersTimeout from now. */
  private armHeaders(): void {
    clearTimeout(this.headersTimer);
    if (this.answered) return;
    this.headersTimer = setTimeout(() => this.fail(timeoutError(HEADERS_TIMEOUT, 'headers', this.headersTimeout)), this.headersTimeout);
  }

  /**
   * A streamed body, in HTTP chunks as it comes, at the connection's pace; the deadline of the
   * answer's headers runs while the server has a chunk to take, and after the last (not while the
   * stream is awaited, the caller's time). It stops when the answer is over (a server that
   * answers before the end, a refusal, says so and closes), and fails the exchange when the
   * stream fails.
   */
  async writeChunked(body: AsyncIterable<Uint8Array>): Promise<void> {
    const { socket } = this;
    const chunks = body[Symbol.asyncIterator]();
    try {
      for (;;) {
        clearTimeout(this.headersTimer);
        const next = await chunks.next();
        if (this.answered || this.over) {
          await chunks.return?.();
          return;
        }
        if (next.done) break;
        const chunk = next.value;
        this.armHeaders();
        if (chunk.length === 0) continue;
        socket.cork();
        socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
        socket.write(chunk);
        const room = socket.write('\r\n', 'latin1');
        socket.uncork();
        if (!room && !this.answered && !this.over) {
          await new Promise<void>((resolve) => {
            const go = () => {
              socket.off('drain', go).off('close', go);
              resolve();
            };
            socket.on('drain', go).on('close', go);
          });
        }
      }
      this.armHeaders();
      socket.write('0\r\n\r\n', 'latin1', this.written);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  /** The write callback of the request's last part. */
  readonly written = (err?: Error | null): void => {
    this.sent = true;
    if (!this.reuseWhenSent) return;
    if (err || this.socket.destroyed || !this.socket.writable) this.socket.destroy();
    else this.giveBack(this.socket.off('error', ignore), this.idleMs);
  };

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  get destroyed(): boolean {
    return this.finished;
  }

  destroy(error?: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.chunks.length = 0;
    // Closed before its end: as Node's streams say it. (A body already whole, its connection
    // already back in the pool, stays there.)
    const reason = error ?? Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    this.fail(reason);
    this.failed ??= reason;
    this.notify();
  }

  /**
   * The chunks, as received. The clock (bodyTimeout) runs only while the reader waits for one: a
   * reader that takes its time over a chunk holds the connection back without timing it out.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    let complete = false;
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk) {
          if (this.chunks.length === 0 && this.paused && !this.over) {
            this.paused = false;
            this.socket.resume();
          }
          yield chunk;
          continue;
        }
        if (this.failed) throw this.failed;
        if (this.over) {
          complete = true;
          return;
        }
        const ms = this.bodyTimeout;
        const timer = setTimeout(() => this.fail(timeoutError(BODY_TIMEOUT, 'body', ms)), ms);
        try {
          await new Promise<void>((resolve) => (this.wake = resolve));
        } finally {
          clearTimeout(timer);
        }
      }
    } finally {
      // A reader that stops early closes the connection.
      if (complete) this.finished = true;
      else this.destroy();
    }
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Reads and drops the rest, so the connection can serve the next request; a long rest closes it. */
  async dump(): Promise<void> {
    let bytes = 0;
    for await (const chunk of this) {
      bytes += chunk.length;
      if (bytes > 256 * 1024) break;
    }
  }
}

/** Idle connections by origin, kept for the next request to it; they do not hold the process open. */
class Pool {
  private readonly idle = new Map<string, { socket: Socket; gone: () => void }[]>();
  private readonly all = new Set<Socket>();

  add(socket: Socket): Socket {
    this.all.add(socket);
    socket.once('close', () => this.all.delete(socket));
    return socket;
  }

  take(key: string): Socket | undefined {
    const list = this.idle.get(key);
    for (let entry = list?.pop(); entry; entry = list?.pop()) {
      this.forget(entry);
      if (!entry.socket.destroyed && entry.socket.writable) return entry.socket.ref();
      entry.socket.destroy();
    }
    return undefined;
  }

  put(key: string, socket: Socket, idleMs: number): void {
    let list = this.idle.get(key);
    if (!list) this.idle.set(key, (list = []));
    // Closed by the server, failed, or saying something unasked: not to be used again.
    const entry = {
      socket,
      gone: () => {
        const i = list.indexOf(entry);
        if (i >= 0) list.splice(i, 1);
        this.forget(entry);
        socket.destroy();
      },
    };
    socket.on('end', entry.gone).on('close', entry.gone).on('error', entry.gone).on('data', entry.gone).on('timeout', entry.gone);
    socket.setTimeout(idleMs).unref();
    list.push(entry);
  }

  private forget({ socket, gone }: { socket: Socket; gone: () => void }): void {
    socket.setTimeout(0).off('end', gone).off('close', gone).off('error', gone).off('data', gone).off('timeout', gone);
  }

  destroy(): void {
    for (const socket of this.all) socket.destroy();
    this.all.clear();
    this.idle.clear();
  }
}

/**
 * Requests over HTTP/1.1 spoken over node:net or node:tls sockets (framing: ./http1.ts), kept
 * alive for the client's life. With `socketPath` every request goes to that Unix socket (the URL
 * still gives the Host and the path). The deadline for the answer's headers (`headersTimeout`)
 * runs from the request's start, the connection included.
 */
export function http1Transport(opts: { socketPath?: string } = {}): Transport {
  const pool = new Pool();
  const connect = (u: URL): Socket => {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const where = opts.socketPath ? { path: opts.socketPath, host } : { host, port: Number(u.port) || (u.protocol === 'https:' ? 443 : 80) };
    // node:tls only for an https URL: a start that sends over plain HTTP does not pay for it.
    const socket =
      u.protocol === 'https:'
        ? process.getBuiltinModule('node:tls').connect({
            ...where,
            // SNI, not for an address. (Not net.isIP: its IPv6 pattern costs some 15 ms to compile.)
            ...(host.includes(':') || /^[\d.]+$/.test(host) ? {} : { servername: host }),
          })
        : process.getBuiltinModule('node:net').connect(where);
    // As node:http sets them. (Without no-delay, the last short segment of a large body would wait
    // for the server's delayed acknowledgement of the others.)
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    return pool.add(socket);
  };

  const request: RequestFn = (url: string, options: RequestOptions) =>
    new Promise<Answer>((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(abortError());
        return;
      }
      const u = new URL(url);
      const { method, body } = options;
      const whole = body === undefined || typeof body === 'string' || Buffer.isBuffer(body);
      const head = requestHead(method, `${u.pathname}${u.search}`, u.host, options.headers, whole ? (body === undefined ? undefined : Buffer.byteLength(body)) : 'chunked');
      const key = `${u.protocol}//${u.host}`;
      const socket = pool.take(key) ?? connect(u);
      // (It listens on the socket from here on, and settles the promise.)
      const exchange = new Exchange(socket, method, options, resolve, reject, (s, idleMs) => pool.put(key, s, idleMs));
      if (!whole) {
        socket.write(head, 'latin1');
        void exchange.writeChunked(body);
        return;
      }
      // One write of head and body: a large body (an import's batch) is queued by reference, not copied.
      const hasBody = body !== undefined && body.length > 0;
      socket.cork();
      socket.write(head, 'latin1', hasBody ? undefined : exchange.written);
      if (hasBody) socket.write(body, exchange.written);
      socket.uncork();
    });

  return {
    request,
    async close() {
      pool.destroy();
    },
  };
}

type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | undefined;

/**
 * undici's request() over `dispatcher`, or over an EnvHttpProxyAgent of its own (closed by
 * `close`, unlike a given dispatcher).
 */
export async function undiciTransport(opts: { dispatcher?: Dispatcher; connectTimeoutMs: number }): Promise<Transport> {
  const undici = await (undiciModule ??= import('undici'));
  const own = opts.dispatcher ? undefined : new undici.EnvHttpProxyAgent({ connect: { timeout: opts.connectTimeoutMs } });
  const dispatcher = opts.dispatcher ?? own!;
  return {
    request: (url, { body, ...options }) =>
      undici.request(url, {
        ...options,
        // (A streamed body as a stream, which undici sends chunked.)
        body: body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? body : process.getBuiltinModule('node:stream').Readable.from(body),
        method: options.method as Dispatcher.HttpMethod,
        dispatcher,
      }),
    close: async () => {
      await own?.close();
    },
  };
}
