// The service answering in its caller's process: no socket, no port, no key, no HTTP parser. The
// CLI's embedded default hands `request` to the client, whose request core sends through it as it
// would through a transport.
//
// A request for a route of the table (matched by the app's rule, a JSON body or none) is
// dispatched here directly: the body parsed by the app's parser, the parts validated as the app
// validates them (routing.ts has both), the route's handler run and its outcome, or its failure,
// answered as the app answers it (answers.ts). Building the fastify
// app (loading fastify, registering every route) was most of a first command's time. Anything
// else (an unknown path or method, a path or query in any doubt, another content type, a body
// over the limit) goes to the app itself, built then, and injected (fastify's inject): its
// routing, its 404, 405, 413, 415.
import type { Readable, Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { parse as parseQuery } from 'fast-querystring';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../schema/paths.js';
import type { RouteName } from '../schema/routes.js';
import { errorAnswer, errorJson, JSON_TYPE, perform, TEXT_TYPE, type Outcome } from './answers.js';
import type { AppOptions } from './app.js';
import { parseJsonBody } from './body.js';
import { invalidAnswer } from './validation.js';
import { listingChunks } from './listing.js';
import { DEFAULT_BODY_LIMIT, MAX_PARAM_LENGTH, routeTable } from './route-table.js';
import { DOCUMENT_ROUTE, Invalid, matchRoute, validateRequest } from './routing.js';
import { ingestStreamed, mediaType, NDJSON_TYPE } from './ndjson.js';
import { StreamedBody } from './streamed-body.js';
import { handlers } from './routes/index.js';

export interface InProcessRequest {
  method: string;
  headers: Record<string, string>;
  /** A stream only as NDJSON (ndjson.ts), read as it comes. */
  body: string | Buffer | AsyncIterable<Uint8Array> | undefined;
  /** Aborts the request and its answer (the caller's deadline). */
  signal?: AbortSignal;
}

/** An answer's bytes, read once: the app's stream (inject), or a direct answer's text or list. */
export interface InProcessBody extends AsyncIterable<Uint8Array> {
  readonly destroyed: boolean;
  /** Stops the answer: its reader fails with `error` (a premature close without one). */
  destroy(error?: Error): void;
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
  /** Closes the app, if one was built, then the store. */
  close(): Promise<void>;
}

type InProcessOptions = Omit<AppOptions, 'apiKeys' | 'timeouts'>;

/** The app on `options.store`, answering in this process; no key: nothing outside can reach it. */
export async function openInProcess(options: InProcessOptions): Promise<InProcessService> {
  const { store } = options;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  let app: Promise<InProcessService> | undefined;
  let closing: Promise<void> | undefined;
  return {
    async request(url, request) {
      const { pathname, search } = new URL(url);
      const route = directRoute(request, pathname, search, bodyLimit);
      if (!route) return (await (app ??= injecting(options))).request(pathname + search, request);
      return abortable(dispatch(route, request, store, bodyLimit), request.signal);
    },
    close: () =>
      (closing ??= (async () => {
        await (await app?.catch(() => undefined))?.close();
        await store.close();
      })()),
  };
}

// ------------------------------------------------------------------ the direct path

/** A path below the API taken directly: segments of unreserved characters (nothing to decode), no empty one. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9._~-]+)+$/;

interface DirectRoute {
  name: RouteName;
  /** The body is NDJSON, read as it comes. */
  streamed: boolean;
  params: Record<string, string>;
  query: Record<string, unknown>;
}

/**
 * The route a request is dispatched to directly, or undefined when the app must answer it: the
 * route the app's rule takes (routing.ts#matchRoute), but a HEAD (fastify answers it without the
 * body) and the document (the app's own).
 */
function directRoute(request: InProcessRequest, pathname: string, search: string, bodyLimit: number): DirectRoute | undefined {
  const { method, body } = request;
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const path = pathname.slice(API_PREFIX.length);
  if (!PLAIN_PATH.test(path)) return undefined;
  let streamed = false;
  if (body !== undefined) {
    // Bodies fastify reads as this one does: JSON, within the limit, or NDJSON on a route that
    // takes it (checked below); GET and HEAD take none.
    if (method === 'GET' || method === 'HEAD') return undefined;
    streamed = mediaType(request.headers['content-type']) === NDJSON_TYPE;
    if (!streamed && request.headers['content-type'] !== 'application/json') return undefined;
    if (!streamed && (typeof body !== 'string' && !Buffer.isBuffer(body) || body.length === 0 || Buffer.byteLength(body) > bodyLimit)) return undefined;
  }
  const match = matchRoute(method, path);
  if (method === 'HEAD' || !match || !('route' in match) || match.route === DOCUMENT_ROUTE) return undefined;
  const { route: name, params } = match;
  if (Object.values(params).some((p) => p.length > MAX_PARAM_LENGTH) || (streamed && !routeTable[name].streamed)) return undefined;
  // (The router's parser: fastify's own, so that repeated and odd parameters mean the same.)
  const query = search.length > 1 ? (parseQuery(search.slice(1)) as Record<string, unknown>) : {};
  return { name, streamed, params, query };
}

/** The chunks of a body given whole or as a stream. */
async function* chunksOf(body: string | Buffer | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (typeof body === 'string' || Buffer.isBuffer(body)) yield Buffer.from(body);
  else yield* body;
}

async function dispatch(
  { name, streamed, params, query }: DirectRoute,
  request: InProcessRequest,
  store: InProcessOptions['store'],
  bodyLimit: number,
): Promise<InProcessAnswer> {
  const spec = routeTable[name];
  try {
    // (No stall limit: the stream is this process's own.)
    const body = request.body === undefined ? undefined : streamed ? new StreamedBody(chunksOf(request.body), bodyLimit) : parseJsonBody(Buffer.from(request.body as string | Buffer));
    const parts = { params, body, query };
    handlers[name].preValidation?.(parts);
    validateRequest(name, parts);
    if (body instanceof StreamedBody) return await answerOf({ json: await ingestStreamed(name, { params, query, body, store }) });
    return await answerOf(await perform(name, { ...parts, store } as never));
  } catch (err) {
    const [status, message] =
      err instanceof Invalid ? invalidAnswer(err.validationContext, err.validation, spec.invalidStatus) : errorAnswer(err as Error, request.headers['content-type']);
    return answer(status, { 'content-type': JSON_TYPE }, JSON.stringify(errorJson(status, message)));
  }
}

async function answerOf(outcome: Outcome): Promise<InProcessAnswer> {
  if ('text' in outcome) return answer(200, { 'content-type': TEXT_TYPE }, outcome.text);
  if ('json' in outcome) return answer(200, { 'content-type': JSON_TYPE }, JSON.stringify(outcome.json));
  const { list } = outcome;
  const headers: InProcessAnswer['headers'] = { 'content-type': JSON_TYPE };
  if (list.total !== undefined) headers['x-total-count'] = String(list.total);
  return answer(200, headers, await listingChunks(list, { rows: 0 }));
}

/** An answer whose body is a text or a list's chunks (read as fast as its reader reads). */
function answer(statusCode: number, headers: InProcessAnswer['headers'], content: string | Buffer | AsyncGenerator<string | Buffer>): InProcessAnswer {
  return { statusCode, headers, body: new DirectBody(content) };
}

/**
 * A direct answer's body: its text, or its list's chunks as bytes (as a socket carries them),
 * taken from the list as the reader asks. No stream between them: a stream, and Node's async
 * iterator of it, cost a one-off command's answer about 2 ms to set up. A reader that stops, or
 * a destroy, closes the list (and its database cursor).
 */
class DirectBody implements InProcessBody {
  destroyed = false;
  /** Rejects the read that waits when the body is destroyed. */
  private stop: ((error: Error) => void) | undefined;
  private failure: Error | undefined;

  constructor(private readonly content: string | Buffer | AsyncGenerator<string | Buffer>) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    const { content } = this;
    if (typeof content === 'string' || Buffer.isBuffer(content)) {
      if (this.failure) throw this.failure;
      this.destroyed = true;
      yield typeof content === 'string' ? Buffer.from(content) : content;
      return;
    }
    try {
      for (;;) {
        if (this.failure) throw this.failure;
        // A promise of this read's own, which destroy() rejects. (Not a race with one promise
        // for the whole list: each race leaves a reaction on it, and that reaction holds the
        // read's chunk until the list ends: an export kept every chunk, 575 MB at a million.)
        const read = content.next();
        const next = await new Promise<IteratorResult<string | Buffer>>((resolve, reject) => {
          this.stop = reject;
          read.then(resolve, reject);
        });
        this.stop = undefined;
        if (next.done) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    } finally {
      this.destroyed = true;
      // (Behind a read still running, if one is: the list then ends where it is.)
      void content.return(undefined).catch(() => undefined);
    }
  }

  destroy(error?: Error): void {
    if (this.failure) return;
    this.failure = error ?? Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    this.stop?.(this.failure);
    const { content } = this;
    if (typeof content !== 'string' && !Buffer.isBuffer(content)) void content.return(undefined).catch(() => undefined);
    this.destroyed = true;
  }

  text(): Promise<string> {
    return text(this);
  }

  async dump(): Promise<void> {
    this.destroy();
  }
}

/** The answer, or the caller's deadline: aborted, the request fails, and a body that came is dropped. */
async function abortable(answering: Promise<InProcessAnswer>, signal: AbortSignal | undefined): Promise<InProcessAnswer> {
  if (!signal) return answering;
  const aborted = () => Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
  if (signal.aborted) {
    void answering.then((a) => a.body.destroy(), () => undefined);
    throw aborted();
  }
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => signal.addEventListener('abort', (onAbort = () => reject(aborted())), { once: true }));
  try {
    const result = await Promise.race([answering, stopped]);
    signal.addEventListener('abort', () => result.body.destroy(aborted()), { once: true });
    return result;
  } catch (err) {
    void answering.then((a) => a.body.destroy(), () => undefined);
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

// ------------------------------------------------------------------ the app, for the rest

const discard = (_chunk: unknown, _encoding: unknown, written: () => void) => written();

/** The app built on the store, answering by inject; closing it leaves the store open. */
async function injecting(options: InProcessOptions): Promise<InProcessService> {
  // (Imported only now: fastify's app and the schemas it is built from, which a route of the table never needs.)
  const { buildApp } = await import('./app.js');
  const app: FastifyInstance = await buildApp(options);
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
  const request: InProcessService['request'] = async (url, { method, headers, body, signal }) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers,
      // (A stream as a stream: inject would send any other object as its JSON.)
      ...(body === undefined ? {} : { payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : process.getBuiltinModule('node:stream').Readable.from(body) }),
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
  };
  return { request, close: () => app.close() };
}
