// How the request core's requests reach a server. A transport is only a `request` function
// (RequestFn) and a `close`: retries, deadlines, error mapping and list parsing stay in the core.
//
// - nodeTransport: plain HTTP and HTTPS through node:http / node:https, the default. Node's own
//   parser is native code, so a one-off command compiles no WebAssembly and loads no 400 KB
//   library; a Unix socket (`socketPath`) is reached the same way.
// - undiciTransport: undici's request(), when it earns its place: an HTTP(S)_PROXY in the
//   environment (its EnvHttpProxyAgent honours NO_PROXY too) or a `dispatcher` given by a library
//   user (custom TLS, mocks, pools). undici is imported only then.
// - A service in the same process passes its own `request` (server/in-process.ts).
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Answer, AnswerBody, RequestFn, RequestOptions } from './core.js';

export interface Transport {
  request: RequestFn;
  /** Closes the connections it keeps alive. */
  close(): Promise<void>;
}

/** The codes undici gives its timeouts: a caller sees the same `code` whichever transport sent. */
export const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
export const BODY_TIMEOUT = 'UND_ERR_BODY_TIMEOUT';

const timeoutError = (code: string, what: string, ms: number) =>
  Object.assign(new Error(`${what} timeout (${ms} ms)`), { code });

/** Whether the environment names a proxy (then requests go through undici's EnvHttpProxyAgent). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy);
}

/** An answer's body over node:http's response, shaped as the core reads it (undici's is alike). */
class NodeBody implements AnswerBody {
  constructor(
    private readonly res: IncomingMessage,
    /** The longest wait for the next chunk while the reader waits (undici's bodyTimeout). */
    private readonly timeoutMs: number,
  ) {}

  get destroyed(): boolean {
    return this.res.destroyed;
  }

  destroy(error?: Error): void {
    this.res.destroy(error);
  }

  /**
   * The chunks. The clock runs only while the reader waits for one: a reader that takes its
   * time over a chunk (a pager, a slow disk) holds the stream back without timing it out.
   *
   * Read by the stream's events, the response paused while a chunk waits for the reader: Node's
   * own async iterator of a stream sets up machinery (end-of-stream, a readable loop) that costs
   * a one-off command about 2 ms, for an answer of a few kilobytes.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    const res = this.res;
    const waiting: Buffer[] = [];
    let ended = false;
    let failed: Error | undefined;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const onData = (chunk: Buffer) => {
      waiting.push(chunk);
      res.pause();
      notify();
    };
    const onEnd = () => {
      ended = true;
      notify();
    };
    const onError = (err: Error) => {
      failed ??= err;
      notify();
    };
    // Closed before its end without an error (the connection lost): as Node's iterator says it.
    const premature = () => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const onClose = () => {
      if (!ended) failed ??= res.errored ?? premature();
      notify();
    };
    if (res.readableEnded) ended = true;
    else if (res.destroyed) failed = res.errored ?? premature();
    // (The error listener stays: an error after the reader left must not go unhandled.)
    res.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    let done = false;
    try {
      for (;;) {
        const chunk = waiting.shift();
        if (chunk) {
          if (waiting.length === 0) res.resume();
          yield chunk;
          continue;
        }
        if (failed) throw failed;
        if (ended) {
          done = true;
          return;
        }
        const timer = setTimeout(() => res.destroy(timeoutError(BODY_TIMEOUT, 'body', this.timeoutMs)), this.timeoutMs);
        try {
          await new Promise<void>((resolve) => (wake = resolve));
        } finally {
          clearTimeout(timer);
        }
      }
    } finally {
      res.off('data', onData).off('end', onEnd).off('close', onClose);
      // A reader that stops early closes the response (and its connection).
      if (!done) res.destroy();
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

/**
 * Requests through node:http / node:https, connections kept alive for the client's life. With
 * `socketPath` every request goes to that Unix socket (the URL still gives the Host and the path).
 * The deadline for the answer's headers (`headersTimeout`) runs from the request's start, the
 * connection included.
 */
export function nodeTransport(opts: { socketPath?: string } = {}): Transport {
  // Loaded on the first request (https only for an https URL): a start that sends nothing, or
  // sends over plain HTTP, does not pay for TLS.
  const agents = new Map<string, import('node:http').Agent>();
  const moduleFor = (protocol: string) =>
    protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const agentFor = (protocol: string) => {
    let agent = agents.get(protocol);
    if (!agent) agents.set(protocol, (agent = new (moduleFor(protocol).Agent)({ keepAlive: true })));
    return agent;
  };

  const request: RequestFn = (url: string, options: RequestOptions) =>
    new Promise<Answer>((resolve, reject) => {
      const u = new URL(url);
      const headers: Record<string, string> = { ...options.headers };
      if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
      const { signal } = options;
      let req: ClientRequest | undefined;
      let res: IncomingMessage | undefined;
      const onAbort = () => {
        const reason = Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
        req?.destroy(reason);
        res?.destroy(reason);
        reject(reason);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      const headersTimer = setTimeout(
        () => req?.destroy(timeoutError(HEADERS_TIMEOUT, 'headers', options.headersTimeout)),
        options.headersTimeout,
      );
      const hostname = u.hostname.replace(/^\[|\]$/g, '');
      req = moduleFor(u.protocol).request({
        method: options.method,
        hostname,
        // The TLS server name, given: else the agent works it out with net.isIP, whose IPv6 pattern
        // costs some 15 ms to compile on a command's first request. (An address has none.)
        servername: hostname.includes(':') || /^[\d.]+$/.test(hostname) ? '' : hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        headers,
        agent: agentFor(u.protocol),
        ...(opts.socketPath ? { socketPath: opts.socketPath } : {}),
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('response', (response) => {
        clearTimeout(headersTimer);
        res = response;
        // The deadline (signal) goes on covering the body; it is let go with the answer.
        if (signal) response.once('close', () => signal.removeEventListener('abort', onAbort));
        resolve({
          statusCode: response.statusCode ?? 0,
          headers: response.headers,
          body: new NodeBody(response, options.bodyTimeout),
        });
      });
      req.on('error', (err) => {
        clearTimeout(headersTimer);
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      });
      req.end(options.body);
    });

  return {
    request,
    async close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
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
    request: (url, options) => undici.request(url, { ...options, method: options.method as Dispatcher.HttpMethod, dispatcher }),
    close: async () => {
      await own?.close();
    },
  };
}
