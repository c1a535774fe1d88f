// The app factory: the whole interface over HTTP on any store. `chatflow serve` and the CLI's
// embedded mode both start it; tests start it on port 0.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX, OPENAPI_PATH } from '../schema/paths.js';
import { NO_QUERY, routes, type RouteName, type RouteSpec } from '../schema/routes.js';
import { errorAnswer, errorJson, JSON_TYPE, perform, TEXT_TYPE } from './answers.js';
import { keyChecker } from './auth.js';
import { matchRoute, validateRequest } from './routing.js';
import { parseJsonBody } from './body.js';
import { listingProgress, sendListing } from './listing.js';
import { ingestStreamed, NDJSON_TYPE } from './ndjson.js';
import { StreamedBody } from './streamed-body.js';
import { openApiDocument } from './openapi.js';
import { redactUrl } from './request-log.js';
import { DEFAULT_BODY_LIMIT, MAX_PARAM_LENGTH, routeTable } from './route-table.js';
import { startRetention, type Retention, type RetentionPolicy } from './retention.js';
import { handlers } from './routes/index.js';
import type { RouteHandler } from './routes/types.js';
import type { Store } from './store/types.js';
import { compileValidator, invalidAnswer } from './validation.js';

export interface AppOptions {
  store: Store;
  /** When given, every route but ping and version needs one of these keys. */
  apiKeys?: readonly string[];
  /** Largest accepted body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Receives one line per request (method, path, status, ms); nothing when absent. */
  log?: (line: string) => void;
  /**
   * Slow clients may not hold a connection: the headers must arrive within `headersMs`
   * (default 10 s), the whole request within `requestMs` (30 s); an idle keep-alive connection
   * is closed after `keepAliveMs` (72 s).
   */
  timeouts?: { headersMs?: number; requestMs?: number; keepAliveMs?: number };
}

export interface ServerOptions extends AppOptions {
  host?: string;
  port?: number;
  /** Prunes old messages on a schedule while serving (./retention.ts). */
  retention?: RetentionPolicy;
}

interface RouteConfig {
  public?: boolean;
  invalidStatus?: number;
  /** Takes its records as NDJSON too (ndjson.ts). */
  streamed?: boolean;
}

export { MAX_JSON_DEPTH } from './body.js';

/**
 * Connections carrying a streamed ingest: its body may take longer than a request may (node's
 * requestTimeout), as long as it keeps coming (the ingest's own stall limit, ndjson.ts).
 */
const streaming = new WeakSet<Socket>();

/** Requests node's HTTP parser rejects (or that time out) get the JSON error body too. */
function clientError(err: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && streaming.has(socket)) return;
  const [statusCode, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request did not arrive in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the request headers are too large']
        : [400, `malformed HTTP request${err.reason ? `: ${err.reason}` : ''}`];
  // (Not when an answer has begun on this connection: bytes of ours would land inside it.)
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !answering) {
    const body = JSON.stringify({ statusCode, success: false, message });
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** A failure as the log shows it: the driver's code (SQLITE_FULL, 53100) and its message. */
function describeFailure(error: Error & { code?: unknown }): string {
  return `${typeof error.code === 'string' ? `${error.code} ` : ''}${error.message}`;
}

function errorBody(reply: FastifyReply, statusCode: number, message: string) {
  return reply.code(statusCode).type(JSON_TYPE).send(errorJson(statusCode, message));
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { store } = options;
  // A key a client put in the URL (where it does not belong) never reaches a log line: the URL is
  // redacted part by part (request-log.ts), and any line is cut where it still quotes a key.
  const keys = (options.apiKeys ?? []).filter(Boolean);
  const sink = options.log;
  const log = sink && ((line: string) => sink(keys.reduce((out, k) => out.split(k).join('<redacted>'), line)));
  const shownUrl = (request: FastifyRequest) => redactUrl(request.url, keys);
  const requestMs = options.timeouts?.requestMs ?? 30_000;
  const headersMs = Math.min(options.timeouts?.headersMs ?? 10_000, requestMs);
  // Imported here, not at the top: a command answering in its own process (in-process.ts) runs
  // the routes without fastify, and does not load it.
  const { default: Fastify } = await import('fastify');
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger: false,
    // Slow clients may not hold a connection: the headers, then the whole request, must arrive
    // within these (node checks them every connectionsCheckingInterval).
    http: {
      headersTimeout: headersMs,
      requestTimeout: requestMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersMs / 4))),
    },
    requestTimeout: requestMs,
    keepAliveTimeout: options.timeouts?.keepAliveMs ?? 72_000,
    clientErrorHandler: clientError,
    connectionTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before any handler (a malformed or over-long path) get the same body.
    frameworkErrors: (error, _request, reply) =>
      errorBody(reply, error.statusCode ?? 400, error.message.length > 200 ? `${error.message.slice(0, 200)}…` : error.message),
  });
  app.setValidatorCompiler(compileValidator);
  // JSON is the body there is, and NDJSON on the routes that take records in bulk: any other
  // content type is 415 (errorAnswer).
  app.removeAllContentTypeParsers();
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  app.addContentTypeParser(NDJSON_TYPE, (request, payload, done) => {
    if (!(request.routeOptions.config as RouteConfig).streamed) {
      done(Object.assign(new Error('NDJSON'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), undefined);
      return;
    }
    streaming.add(request.raw.socket);
    // Read as it comes, by the route (ndjson.ts): a line at most as long as a body may be.
    done(null, new StreamedBody(payload, bodyLimit, requestMs));
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  // The onRequest hooks below take fastify's callback (`done`) rather than being async: an async
  // hook costs each request a promise and a turn of the microtask queue.

  // One line a request, written when its connection is done with it: also for a list the client
  // stopped reading or the database stopped feeding (then `aborted` and the rows sent), which
  // fastify's onResponse never sees.
  if (log) {
    app.addHook('onRequest', (request, reply, done) => {
      const started = performance.now();
      reply.raw.once('close', () => {
        const ms = `${(performance.now() - started).toFixed(1)}ms`;
        const line = `${request.method} ${shownUrl(request)}`;
        if (reply.raw.writableFinished) return log(`${line} ${reply.statusCode} ${ms}`);
        const sent = listingProgress(reply);
        const cause = sent?.failure ? `: ${describeFailure(sent.failure)}` : '';
        log(`${line} aborted rows=${sent?.rows ?? 0} ${ms}${cause}`);
      });
      done();
    });
  }

  // A path is the route of its methods only (routing.ts, the in-process dispatcher's rule too): a
  // literal path (/variables/import) is never taken for a template (/variables/:id), and a method
  // it lacks is 405 with the methods it has, an unknown method (QUERY) too. Decided before auth
  // and before any body is read; fastify's router, which puts literal paths first too, then
  // finds the same route.
  const refuseMethod = (request: FastifyRequest, reply: FastifyReply, path: string, allowed: string[]) => {
    reply.header('allow', allowed.join(', '));
    return errorBody(reply, 405, `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '';
    // (Below the prefix, and one trailing slash taken, as the router takes it.)
    const match = path.startsWith(`${API_PREFIX}/`) ? matchRoute(request.method, path.slice(API_PREFIX.length).replace(/(.)\/$/, '$1')) : undefined;
    // (A hook that answers does not call `done`: the request goes no further.)
    if (match && 'allowed' in match) refuseMethod(request, reply, path, match.allowed);
    else done();
  });

  const isKey = options.apiKeys?.length ? keyChecker(options.apiKeys) : undefined;
  if (isKey) {
    app.addHook('onRequest', (request, reply, done) => {
      if (!(request.routeOptions.config as RouteConfig).public && !isKey(request.headers.authorization)) errorBody(reply, 401, 'Unauthorized');
      else done();
    });
  }

  app.setNotFoundHandler((request, reply) => errorBody(reply, 404, `no route ${request.method} ${request.url.split('?')[0] ?? ''}`));

  app.setErrorHandler((error: FastifyError & { validationContext?: string }, request, reply) => {
    if (error.validation) {
      const config = request.routeOptions.config as RouteConfig;
      return errorBody(reply, ...invalidAnswer(error.validationContext ?? 'request', error.validation, config.invalidStatus));
    }
    const [status, message] = errorAnswer(error, request.headers['content-type']);
    // The client is told what it can act on; the log names the real cause.
    if (status >= 500) log?.(`error on ${request.method} ${shownUrl(request)}: ${describeFailure(error)}`);
    return errorBody(reply, status, message);
  });

  await app.register(
    async (api) => {
      for (const [name, spec] of Object.entries(routes) as [RouteName, RouteSpec][]) {
        const handler = handlers[name] as RouteHandler<RouteName>;
        const streamed = routeTable[name].streamed;
        api.route({
          method: spec.method,
          url: spec.path,
          config: { public: spec.public, invalidStatus: spec.invalidStatus, streamed } satisfies RouteConfig,
          // Validated as the in-process dispatcher validates (routing.ts), not by fastify's schemas.
          preValidation: (request, _reply, done) => {
            try {
              handler.preValidation?.(request);
              validateRequest(name, request);
              done();
            } catch (err) {
              done(err as Error);
            }
          },
          handler: async (request, reply) => {
            if (request.body instanceof StreamedBody) {
              // (The answer may come before the whole body, which the connection then does not carry on.)
              reply.header('connection', 'close');
              return ingestStreamed(name, { params: request.params, query: request.query, body: request.body, store });
            }
            const outcome = await perform(name, { params: request.params as never, query: request.query as never, body: request.body as never, store });
            if ('list' in outcome) return sendListing(reply, outcome.list);
            if ('text' in outcome) return reply.type(TEXT_TYPE).send(outcome.text);
            return outcome.json;
          },
        });
      }
      const document = openApiDocument({ secured: Boolean(isKey) });
      api.get(OPENAPI_PATH, { schema: { querystring: NO_QUERY } }, async () => document);
    },
    { prefix: API_PREFIX },
  );
  return app;
}

export interface RunningServer {
  app: FastifyInstance;
  /** The service root, e.g. http://127.0.0.1:3000 (the API is below /api/v1). */
  url: string;
  port: number;
  /** Set with the `retention` option. */
  retention?: Retention;
  /** Stops accepting, finishes in-flight requests, then closes the store. */
  close(): Promise<void>;
}

/** Builds the app and listens; port 0 picks a free port. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const app = await buildApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 3000 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 3000);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  const retention = options.retention && startRetention(options.store, options.retention);
  return {
    app,
    url: `http://${shownHost}:${port}`,
    port,
    ...(retention ? { retention } : {}),
    close: () =>
      (closing ??= (async () => {
        await retention?.stop();
        await app.close();
        await options.store.close();
      })()),
  };
}
