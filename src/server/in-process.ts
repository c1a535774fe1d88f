// The service answering in its caller's process: the app is built but never listens, and each
// request is injected (fastify's inject), so it runs the same routing, validation, hooks and
// error answers as over HTTP, without a socket, a port, a key or an HTTP parser. The CLI's
// embedded default hands `request` to the client, whose request core sends through it as it
// would through undici.
import { text } from 'node:stream/consumers';
import type { Readable, Writable } from 'node:stream';
import { buildApp, type AppOptions } from './app.js';

export interface InProcessRequest {
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Aborts the request and its answer (the caller's deadline). */
  signal?: AbortSignal;
}

export interface InProcessBody extends Readable {
  text(): Promise<string>;
  /** Drops the rest of the answer (the service stops writing it). */
  dump(): Promise<void>;
}

export interface InProcessAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: InProcessBody;
}

export interface InProcessService {
  /** Answers a request for `url` (only its path and query are read), its body as a stream. */
  request(url: string, request: InProcessRequest): Promise<InProcessAnswer>;
  /** Finishes the answers under way, then closes the store. */
  close(): Promise<void>;
}

const discard = (_chunk: unknown, _encoding: unknown, written: () => void) => written();

/** The app on `options.store`, answering in this process; no key: nothing outside can reach it. */
export async function openInProcess(options: Omit<AppOptions, 'apiKeys' | 'timeouts'>): Promise<InProcessService> {
  const app = await buildApp(options);
  // inject's response also writes all it sends to a socket of its own that throws the bytes away,
  // one chunk a turn of the event loop (setImmediate), while telling the writer only about the
  // answer's stream. A list read as fast as it comes runs in promise callbacks and gives the loop
  // no turn, so that socket kept every byte: a million rows held 800 MB. Thrown away at once, it
  // holds nothing, and the answer's stream alone paces the list (its `write` answers false when
  // the reader is behind, and the list waits for 'drain').
  app.addHook('onRequest', (_request, reply, done) => {
    (reply.raw.socket as unknown as Writable)._write = discard;
    done();
  });
  let closing: Promise<void> | undefined;
  return {
    async request(url, { method, headers, body, signal }) {
      const { pathname, search } = new URL(url);
      const res = await app.inject({
        method: method as 'GET',
        url: pathname + search,
        headers,
        ...(body === undefined ? {} : { payload: body }),
        ...(signal ? { signal } : {}),
        // Lists of a million rows go through with backpressure, never whole in memory.
        payloadAsStream: true,
      });
      const stream = res.stream();
      // A reader that stops early closes the response, as a closed socket would: the service
      // then stops the list it was writing (and its database cursor).
      const response = (res.raw as { res: { destroy(): void } }).res;
      stream.once('close', () => response.destroy());
      const answer = Object.assign(stream, {
        text: () => text(stream),
        dump: async () => void stream.destroy(),
      });
      // (inject has made every header value a string already.)
      return { statusCode: res.statusCode, headers: res.headers as InProcessAnswer['headers'], body: answer };
    },
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await options.store.close();
      })()),
  };
}
