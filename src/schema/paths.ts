// Every route's method and path, once. Plain data (no schema library): the client, the CLI's dry
// runs and the service's matcher (server/routing.ts) read them without loading typebox;
// schema/routes.ts adds the rest of each route (its schemas, its summary) to these.

/** Where the interface lives on a server. */
export const API_PREFIX = '/api/v1';
/** The OpenAPI document of the service (not a route of the table: it describes them). */
export const OPENAPI_PATH = '/openapi.json';
/** Flowise's list of credentials (a GET), which our service has not: not a route of the table. */
export const CREDENTIALS_PATH = '/credentials';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request's method and its path below API_PREFIX (routeRequest). */
export interface RouteRequest<M extends HttpMethod = HttpMethod> {
  method: M;
  path: string;
}

/** How the document is asked for. */
export const OPENAPI_REQUEST = { method: 'GET', path: OPENAPI_PATH } as const satisfies RouteRequest;

export const ROUTE_PATHS = {
  ping: { method: 'GET', path: '/ping' },
  version: { method: 'GET', path: '/version' },
  createVariable: { method: 'POST', path: '/variables' },
  listVariables: { method: 'GET', path: '/variables' },
  updateVariable: { method: 'PUT', path: '/variables/:id' },
  deleteVariable: { method: 'DELETE', path: '/variables/:id' },
  setVariable: { method: 'POST', path: '/variables/set' },
  importVariables: { method: 'POST', path: '/variables/import' },
  listFeedback: { method: 'GET', path: '/feedback/:id' },
  createFeedback: { method: 'POST', path: '/feedback' },
  updateFeedback: { method: 'PUT', path: '/feedback/:id' },
  importFeedback: { method: 'POST', path: '/feedback/import' },
  createAssistant: { method: 'POST', path: '/assistants' },
  listAssistants: { method: 'GET', path: '/assistants' },
  getAssistant: { method: 'GET', path: '/assistants/:id' },
  updateAssistant: { method: 'PUT', path: '/assistants/:id' },
  deleteAssistant: { method: 'DELETE', path: '/assistants/:id' },
  importAssistants: { method: 'POST', path: '/assistants/import' },
  listMessages: { method: 'GET', path: '/chatmessage/:id' },
  deleteMessages: { method: 'DELETE', path: '/chatmessage/:id' },
  ingestMessages: { method: 'POST', path: '/chatmessage/:id' },
  listChats: { method: 'GET', path: '/chats/:id' },
  listUpsertHistory: { method: 'GET', path: '/upsert-history/:id' },
  listAllUpsertHistory: { method: 'GET', path: '/upsert-history' },
  deleteUpsertHistory: { method: 'PATCH', path: '/upsert-history/:id' },
  deleteAnyUpsertHistory: { method: 'PATCH', path: '/upsert-history' },
  ingestUpsertHistory: { method: 'POST', path: '/upsert-history/:id' },
  listChatflows: { method: 'GET', path: '/chatflows' },
  getChatflow: { method: 'GET', path: '/chatflows/:id' },
  createChatflow: { method: 'POST', path: '/chatflows' },
  updateChatflow: { method: 'PUT', path: '/chatflows/:id' },
  deleteChatflow: { method: 'DELETE', path: '/chatflows/:id' },
  importChatflows: { method: 'POST', path: '/chatflows/import' },
} as const satisfies Record<string, { method: HttpMethod; path: string }>;

export type RouteName = keyof typeof ROUTE_PATHS;

/** The path's parameter, if it has one (`:id`, the only one there is). */
type PathArgs<N extends RouteName> = (typeof ROUTE_PATHS)[N]['path'] extends `${string}:${string}` ? [id: string] : [];

/** The routes whose path takes an id. */
export type RouteWithId = { [N in RouteName]: PathArgs<N> extends [string] ? N : never }[RouteName];

/** A route's path below API_PREFIX with its parameter filled in, encoded. */
export function routePath<N extends RouteName>(name: N, ...[id]: PathArgs<N>): string {
  const { path } = ROUTE_PATHS[name];
  return id === undefined ? path : path.replace(/:\w+/, encodeURIComponent(id));
}

/** What routeRequest answers for the route `N`: its own method. */
export type RouteRequestOf<N extends RouteName> = RouteRequest<(typeof ROUTE_PATHS)[N]['method']>;

/** A route's method and its path (routePath). */
export function routeRequest<N extends RouteName>(name: N, ...id: PathArgs<N>): RouteRequestOf<N> {
  return { method: ROUTE_PATHS[name].method, path: routePath(name, ...id) };
}
