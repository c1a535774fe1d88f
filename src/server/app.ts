// The app factory: the whole interface over HTTP on any store. `chatflow serve` and the CLI's
// embedded mode both start it; tests start it on port 0.
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { routes, type RouteName, type RouteSpec } from '../schema/routes.js';
import { keyChecker } from './auth.js';
import { ServiceError } from './errors.js';
import { sendListing } from './listing.js';
import { API_PREFIX, openApiDocument } from './openapi.js';
import { handlers } from './routes/index.js';
import type { RouteHandler } from './routes/types.js';
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
}

interface RouteConfig {
  public?: boolean;
  invalidStatus?: number;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

function errorBody(reply: FastifyReply, statusCode: number, message: string) {
  return reply.code(statusCode).type('application/json; charset=utf-8').send({ statusCode, success: false, message });
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { store } = options;
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger: false,
    // Slow clients may not hold a connection: the whole request must arrive within these.
    requestTimeout: 30_000,
    connectionTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
  });
  app.setValidatorCompiler(compileValidator);

  const isKey = options.apiKeys?.length ? keyChecker(options.apiKeys) : undefined;
  if (isKey) {
    app.addHook('onRequest', async (request, reply) => {
      if ((request.routeOptions.config as RouteConfig).public) return;
      if (!isKey(request.headers.authorization)) return errorBody(reply, 401, 'Unauthorized');
    });
  }
  if (options.log) {
    const log = options.log;
    app.addHook('onResponse', async (request, reply) => {
      log(`${request.method} ${request.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
    });
  }

  // Unknown paths are 404; a known path with another method is 405 with the methods it has.
  const known: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+')}/?$`);
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
    if (isUnavailable(error)) return errorBody(reply, 503, 'the database is unavailable; try again shortly');
    const status = error.statusCode ?? 500;
    if (status < 500) return errorBody(reply, status, error.message);
    options.log?.(`error on ${request.method} ${request.url}: ${error.message}`);
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
  /** Stops accepting, finishes in-flight requests, then closes the store. */
  close(): Promise<void>;
}

/** Builds the app and listens; port 0 picks a free port. */
export async function startServer(options: AppOptions & { host?: string; port?: number }): Promise<RunningServer> {
  const app = await buildApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 3000 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 3000);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await options.store.close();
      })()),
  };
}
