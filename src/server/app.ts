// The app factory: the whole interface over HTTP on any store. `chatflow serve` and the CLI's
// embedded mode both start it; tests start it on port 0.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { routes, type RouteName, type RouteSpec } from '../schema/routes.js';
import { keyChecker } from './auth.js';
import { ServiceError } from './errors.js';
import { sendListing } from './listing.js';
import { API_PREFIX, openApiDocument } from './openapi.js';
import { startRetention, type Retention, type RetentionPolicy } from './retention.js';
import { handlers } from './routes/index.js';
import type { RouteHandler } from './routes/types.js';
import { Conflict, NotFound, StoreError } from './store/errors.js';
import { isUnavailable } from './store/failures.js';
import type { Listing, Store } from './store/types.js';
import { compileValidator, validationMessage } from './validation.js';

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
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** JSON nested deeper is refused: storing and answering it would recurse once a level. */
export const MAX_JSON_DEPTH = 100;
const MAX_PARAM_LENGTH = 1000;

/** Whether a parsed JSON value nests deeper than `max` levels (iteratively: any depth is safe). */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** Requests node's HTTP parser rejects (or that time out) get the JSON error body too. */
function clientError(err: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
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

/** The one place a store's refusal becomes an answer: its status, and its words for a client. */
function storeRefusal(error: StoreError): [status: number, message: string] {
  if (error instanceof NotFound) return [404, error.message];
  if (error instanceof Conflict) {
    const existing = error.existing && routes.updateFeedback.path.replace(':id', error.existing.id);
    return [409, existing ? `${error.message}: change it with PUT ${existing}` : error.message];
  }
  // A bad reference, a value the database cannot keep: the request's to fix.
  return [400, error.message];
}

function errorBody(reply: FastifyReply, statusCode: number, message: string) {
  return reply.code(statusCode).type('application/json; charset=utf-8').send({ statusCode, success: false, message });
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { store } = options;
  // A key a client put in the URL (where it does not belong) is cut out of the log lines too.
  const secrets = (options.apiKeys ?? []).filter(Boolean).flatMap((k) => [k, encodeURIComponent(k)]);
  const sink = options.log;
  const log = sink && ((line: string) => sink(secrets.reduce((out, k) => out.split(k).join('<redacted>'), line)));
  const requestMs = options.timeouts?.requestMs ?? 30_000;
  const headersMs = Math.min(options.timeouts?.headersMs ?? 10_000, requestMs);
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

  const isKey = options.apiKeys?.length ? keyChecker(options.apiKeys) : undefined;
  if (isKey) {
    app.addHook('onRequest', async (request, reply) => {
      if ((request.routeOptions.config as RouteConfig).public) return;
      if (!isKey(request.headers.authorization)) return errorBody(reply, 401, 'Unauthorized');
    });
  }
  app.addHook('preHandler', async (request, reply) => {
    if (request.body !== null && typeof request.body === 'object' && nestsDeeper(request.body, MAX_JSON_DEPTH)) {
      return errorBody(reply, 400, `body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
  });
  if (log) {
    app.addHook('onResponse', async (request, reply) => {
      log(`${request.method} ${request.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
    });
  }

  // Unknown paths are 404; a known path with another method is 405 with the methods it has.
  const known: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const literal = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`^${literal.replace(/:[^/]+/g, '[^/]+')}/?$`);
    for (const method of [route.method].flat()) known.push({ pattern, method });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = [...new Set(known.filter((k) => k.pattern.test(path)).map((k) => k.method))];
    if (allowed.length) {
      reply.header('allow', allowed.join(', '));
      return errorBody(reply, 405, `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`);
    }
    return errorBody(reply, 404, `no route ${request.method} ${path}`);
  });

  app.setErrorHandler((error: FastifyError & { validationContext?: string }, request, reply) => {
    if (error.validation) {
      const config = request.routeOptions.config as RouteConfig;
      const status = error.validationContext === 'body' ? (config.invalidStatus ?? 400) : 400;
      return errorBody(reply, status, validationMessage(error.validationContext ?? 'request', error.validation));
    }
    if (error instanceof ServiceError) return errorBody(reply, error.statusCode, error.message);
    if (error instanceof StoreError) return errorBody(reply, ...storeRefusal(error));
    if (isUnavailable(error)) return errorBody(reply, 503, 'the database is unavailable; try again shortly');
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const given = String(request.headers['content-type'] ?? '').slice(0, 100);
      return errorBody(reply, 415, `content-type ${given || '(none)'} is not supported: send application/json`);
    }
    const status = error.statusCode ?? 500;
    if (status < 500) return errorBody(reply, status, error.message);
    log?.(`error on ${request.method} ${request.url}: ${error.message}`);
    return errorBody(reply, 500, 'internal error');
  });

  await app.register(
    async (api) => {
      for (const [name, spec] of Object.entries(routes) as [RouteName, RouteSpec][]) {
        const handler = handlers[name] as RouteHandler<RouteName>;
        api.route({
          method: spec.method,
          url: spec.path,
          schema: {
            ...(spec.params ? { params: spec.params } : {}),
            ...(spec.query ? { querystring: spec.query } : {}),
            ...(spec.body ? { body: spec.body } : {}),
          },
          config: { public: spec.public, invalidStatus: spec.invalidStatus } satisfies RouteConfig,
          ...(handler.preValidation ? { preValidation: async (req: FastifyRequest) => handler.preValidation?.(req) } : {}),
          handler: async (request, reply) => {
            const result = await handler.handle({
              params: request.params as never,
              query: request.query as never,
              body: request.body as never,
              store,
              reply,
            });
            if (result === reply) return reply;
            return spec.list ? sendListing(reply, result as Listing<unknown>) : result;
          },
        });
      }
      const document = openApiDocument();
      api.get('/openapi.json', async () => document);
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
