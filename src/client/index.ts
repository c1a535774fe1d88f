// The package's library export, and the only way the CLI reaches data.
//
// Errors: every failure is a ChatflowError { kind, status?, code? }:
//   an HTTP error answer               kind http, its status
//   a 5xx saying "not found" (Flowise) kind http, status 404
//   connection refused/reset, DNS      kind network (code ECONNREFUSED, ENOTFOUND, ...)
//   an invalid base URL                kind network, code ERR_INVALID_URL
//   headers/body/connect timeout       kind timeout
//   200 text/html (Flowise's UI page for a route it lacks)   kind unsupported
//   a body that is not the JSON expected                     kind invalid-response
//   a request this server cannot honour exactly (a delete Flowise would widen, an unreadable
//   date), refused before anything is sent            kind refused (code: why)
//   a delete that removed more than the same filters list    kind inexact
// (The CLI maps these to its exit codes in src/cli/base/errors.ts.)
//
// Server dialects (./dialect): the client learns once which kind of server it talks to (our
// service or Flowise; see ClientOptions.server and serverCache) and asks each list and delete in
// the words that server honours exactly, so that the same query means the same records on both.
import { type CoreOptions, HttpCore, type QueryInput, type RawResponse } from './core.js';
import { dialectOf, processCache, serverKind, type ServerInfo, type ServerKind, type ServerKindCache } from './dialect/index.js';
import { assistantsApi } from './assistants.js';
import { chatflowsApi } from './chatflows.js';
import { credentialsApi } from './credentials.js';
import { feedbackApi } from './feedback.js';
import { chatsApi } from './chats.js';
import { messagesApi } from './messages.js';
import { serviceApi } from './service.js';
import { upsertHistoryApi } from './upsertHistory.js';
import { variablesApi } from './variables.js';

export interface ClientOptions extends CoreOptions {
  /** The kind of server, when the caller knows it: no probe is made. */
  server?: ServerKind;
  /** Where the kind of each server URL is remembered; default: for the life of the process. */
  serverCache?: ServerKindCache;
}

export function createClient(opts: ClientOptions) {
  const core = new HttpCore(opts);
  const service = serviceApi(core);
  const server = serverKind(core, opts.server, opts.serverCache ?? processCache);
  const dialect = async (o?: { fresh?: boolean }) => dialectOf(await server(o));
  return {
    /** The server root and the API root (`.../api/v1`) the client talks to. */
    serverUrl: core.serverUrl,
    apiUrl: core.apiUrl,
    /** The most one ingest request carries (see ClientOptions.batch). */
    batch: core.batch,
    variables: variablesApi(core),
    /**
     * Which kind of server this is: our service (`chatflow`) or Flowise (`flowise`, also any other
     * server that is not ours); undefined when it would not say (401, 5xx).
     */
    server: async (): Promise<ServerKind | undefined> => (await server())?.kind,
    /** The kind of server and, for Flowise, the version it reports (remembered with the kind). */
    serverInfo: (): Promise<ServerInfo | undefined> => server(),
    feedback: feedbackApi(core, dialect),
    assistants: assistantsApi(core),
    messages: messagesApi(core, dialect),
    /** Chats: one summary per chat, newest activity first, and one chat's transcript. */
    chats: chatsApi(core, dialect),
    upsertHistory: upsertHistoryApi(core, dialect),
    chatflows: chatflowsApi(core),
    /** Flowise's credentials (names and ids, never secrets); our service has none. */
    credentials: credentialsApi(core),
    ping: service.ping,
    version: service.version,
    /** Any call below /api/v1, answered without throwing on 4xx/5xx. */
    raw: (method: string, path: string, body?: unknown, query?: QueryInput): Promise<RawResponse> =>
      core.raw(method, path, body, query),
    /** Whether a request of this client has changed data (a POST, PUT, PATCH or DELETE answered 2xx). */
    get changedData(): boolean {
      return core.changedData;
    },
    /** Closes the client's connections (not those of a dispatcher given in the options). */
    close: (): Promise<void> => core.close(),
  };
}

export type ChatflowClient = ReturnType<typeof createClient>;

export { ChatflowError, type ChatflowErrorKind } from './errors.js';
export {
  DEFAULT_BATCH,
  HttpCore,
  JsonText,
  buildQuery,
  type BatchLimits,
  type CoreOptions,
  type ListResult,
  type QueryInput,
  type RawResponse,
} from './core.js';
export { IngestStream } from './ingest-stream.js';
export type { Answer, AnswerBody, RequestFn, RequestOptions } from './transport-types.js';
export type { Credential } from './credentials.js';
export type { FeedbackListQuery } from './feedback.js';
export type { MessageDeletePlan, MessageDeleteQuery, MessageListQuery, PlanOptions } from './messages.js';
export type { RatedChat } from './chat-feedback.js';
export type { ChatListQuery, ChatSummary } from './chats.js';
export type { ServerInfo, ServerKind, ServerKindCache } from './dialect/index.js';
export type { UpsertHistoryQuery } from './upsertHistory.js';
export type * from '../schema/resources.js';
export type { RouteBody, RouteName, RouteParams, RouteQuery } from '../schema/routes.js';
