// Every route of the service, once: its method and path (schema/paths.ts) with its schemas and
// words here. The server registers and validates from this table, the OpenAPI document is
// generated from it, and the client takes its request types from it.
import { Type, type Static, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import {
  Affected,
  ChatflowIdParam,
  DateBound,
  FreeId,
  IdParam,
  Pagination,
  QueryBoolean,
  SortOrderParam,
  StringEnum,
} from './common.js';
import {
  ASSISTANT_TYPES,
  Assistant,
  AssistantCreate,
  AssistantIngest,
  AssistantUpdate,
  ChatMessage,
  ChatMessageIngest,
  CHATFLOW_TYPES,
  ChatflowCreate,
  ChatflowDefinition,
  ChatflowIngest,
  ChatflowListItem,
  ChatflowUpdate,
  Feedback,
  FeedbackCreate,
  FeedbackIngest,
  FeedbackUpdate,
  RATINGS,
  UpsertHistory,
  UpsertHistoryDelete,
  UpsertHistoryIngest,
  Variable,
  VariableCreate,
  VariableIngest,
  VariableSet,
  VariableUpdate,
} from './resources.js';
import { ChatSummary } from './chats.js';
import { MESSAGE_FILTERS, type FilterSchema } from './filters.js';
import { CHATS_PAGE_SIZE, MAX_INGEST_ITEMS } from './limits.js';
import { ROUTE_PATHS, type HttpMethod, type RouteName } from './paths.js';

/** A route: its method and path (schema/paths.ts) and what this table adds to them. */
export interface RouteSpec extends RouteDetails {
  method: HttpMethod;
  /** Path below /api/v1, in fastify's `:param` form. */
  path: string;
}

interface RouteDetails {
  tag: string;
  summary: string;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** The success body (status 200). */
  response?: TSchema;
  /** Error statuses the interface lists for the operation (500 is implied everywhere). */
  errors: number[];
  /** Status for a body that parses but breaks a rule: 422 where the interface lists it. */
  invalidStatus?: 400 | 422;
  /** Answers an array that is streamed unless `page`/`limit` are given. */
  list?: boolean;
  /** Open without an API key. */
  public?: boolean;
  /** Not part of the Flowise interface. */
  extension?: boolean;
}

/**
 * Query parameters: an unknown one is 400 on every route, never ignored, so that a mistyped
 * filter cannot widen a list or a delete.
 */
const Query = <P extends TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });
/** The query of a route that takes none. */
export const NO_QUERY = Query({});

const ChatTypeList = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  description: 'Repeatable: chatType=INTERNAL&chatType=EXTERNAL',
});
const FeedbackType = StringEnum(RATINGS);
const FILTER_SCHEMAS = {
  chatTypes: ChatTypeList,
  freeId: FreeId,
  text: Type.String({ maxLength: 255 }),
  dateBound: DateBound,
  rating: FeedbackType,
} satisfies Record<FilterSchema, TSchema>;
type Filters = (typeof MESSAGE_FILTERS)[number];
/** The message filters' query properties, from the one table (src/schema/filters.ts). */
const messageFilters = Object.fromEntries(MESSAGE_FILTERS.map((f) => [f.key, Type.Optional(FILTER_SCHEMAS[f.schema])])) as {
  [F in Filters as F['key']]: TOptional<(typeof FILTER_SCHEMAS)[F['schema']]>;
};
/** The date filters of the other lists (feedback, upsert history): the messages' own, from the table. */
const DateRange = { startDate: messageFilters.startDate, endDate: messageFilters.endDate };
const OneOrMany = <T extends TSchema>(item: T) => Type.Union([item, Type.Array(item, { maxItems: MAX_INGEST_ITEMS })]);
const Many = <T extends TSchema>(item: T) => Type.Array(item, { maxItems: MAX_INGEST_ITEMS });
const Pong = Type.String({ examples: ['pong'] });

/** What each route is beyond its method and path (which ROUTE_PATHS alone holds: a `path` here fails the compile). */
const details = {
  ping: { tag: 'service', summary: 'Liveness check', response: Pong, errors: [], public: true },
  version: {
    tag: 'service',
    summary: 'Service version',
    response: Type.Object({ version: Type.String() }),
    errors: [],
    public: true,
  },

  createVariable: {
    tag: 'variables', summary: 'Create a variable',
    body: VariableCreate, response: Variable, errors: [400, 422], invalidStatus: 422,
  },
  listVariables: {
    tag: 'variables', summary: 'List variables, most recently updated first',
    query: Query({ ...Pagination }), response: Type.Array(Variable), errors: [], list: true,
  },
  updateVariable: {
    tag: 'variables', summary: 'Update a variable (given fields only)',
    params: IdParam, body: VariableUpdate, response: Variable, errors: [400, 404],
  },
  deleteVariable: {
    tag: 'variables', summary: 'Delete a variable',
    params: IdParam, response: Affected, errors: [400, 404],
  },
  setVariable: {
    tag: 'variables',
    summary: 'Update the one variable of this name, or create it when there is none (one transaction: sets at once never make two)',
    body: VariableCreate, response: VariableSet, errors: [400, 409, 422], invalidStatus: 422, extension: true,
  },
  importVariables: {
    tag: 'variables',
    summary: 'Ingest an array of variables (ids and dates kept; existing ids skipped)',
    body: Many(VariableIngest), response: Affected, errors: [400], extension: true,
  },

  listFeedback: {
    tag: 'feedback', summary: 'List the feedback of a chatflow',
    params: ChatflowIdParam,
    query: Query({
      chatId: Type.Optional(FreeId),
      sortOrder: Type.Optional(SortOrderParam),
      order: Type.Optional(SortOrderParam),
      ...DateRange,
      ...Pagination,
    }),
    response: Type.Array(Feedback), errors: [], list: true,
  },
  createFeedback: {
    tag: 'feedback', summary: 'Rate a chat message',
    body: FeedbackCreate, response: Feedback, errors: [400, 404, 409],
  },
  updateFeedback: {
    tag: 'feedback', summary: 'Change a rating or its comment',
    params: IdParam, body: FeedbackUpdate, response: Feedback, errors: [400, 404],
  },
  importFeedback: {
    tag: 'feedback',
    summary: 'Ingest an array of feedback (ids and dates kept; existing ids, and messages already rated, skipped)',
    body: Many(FeedbackIngest), response: Affected, errors: [400], extension: true,
  },

  createAssistant: {
    tag: 'assistants', summary: 'Create an assistant',
    body: AssistantCreate, response: Assistant, errors: [400, 422], invalidStatus: 422,
  },
  listAssistants: {
    tag: 'assistants', summary: 'List assistants',
    query: Query({ type: Type.Optional(StringEnum(ASSISTANT_TYPES)), ...Pagination }),
    response: Type.Array(Assistant), errors: [], list: true,
  },
  getAssistant: {
    tag: 'assistants', summary: 'Get an assistant',
    params: IdParam, response: Assistant, errors: [400, 404],
  },
  updateAssistant: {
    tag: 'assistants', summary: 'Update an assistant (details are merged)',
    params: IdParam, body: AssistantUpdate, response: Assistant, errors: [400, 404],
  },
  deleteAssistant: {
    tag: 'assistants', summary: 'Delete an assistant',
    params: IdParam, response: Affected, errors: [400, 404],
  },
  importAssistants: {
    tag: 'assistants',
    summary: 'Ingest an array of assistants (ids and dates kept; existing ids skipped)',
    body: Many(AssistantIngest), response: Affected, errors: [400], extension: true,
  },

  listMessages: {
    tag: 'chat messages', summary: 'List the messages of a chatflow',
    params: ChatflowIdParam,
    query: Query({
      ...messageFilters,
      order: Type.Optional(SortOrderParam),
      feedback: Type.Optional(QueryBoolean),
      ...Pagination,
    }),
    response: Type.Array(ChatMessage), errors: [], list: true,
  },
  deleteMessages: {
    tag: 'chat messages',
    summary: 'Delete the messages of a chatflow that match the filters (all without filters), with their feedback',
    params: ChatflowIdParam,
    query: Query({ ...messageFilters, hardDelete: Type.Optional(QueryBoolean) }),
    response: Affected, errors: [400, 404],
  },
  ingestMessages: {
    tag: 'chat messages',
    summary: 'Ingest one message or an array of them (ids and dates kept; existing ids skipped)',
    params: ChatflowIdParam, body: OneOrMany(ChatMessageIngest), response: Affected, errors: [400], extension: true,
  },

  listChats: {
    tag: 'chat messages',
    summary: `The chats of a chatflow, newest activity first: one summary per chatId of the messages the filters take (a page: ${CHATS_PAGE_SIZE} unless limit)`,
    params: ChatflowIdParam,
    query: Query({
      chatType: messageFilters.chatType,
      sessionId: messageFilters.sessionId,
      startDate: messageFilters.startDate,
      endDate: messageFilters.endDate,
      feedbackType: Type.Optional(FeedbackType),
      search: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only chats with a message containing this text (any case)' })),
      chatIdStart: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only chats whose id starts with this' })),
      ...Pagination,
    }),
    response: Type.Array(ChatSummary), errors: [], list: true, extension: true,
  },

  listUpsertHistory: {
    tag: 'upsert history', summary: 'List the upsert history of a chatflow',
    params: ChatflowIdParam,
    query: Query({ order: Type.Optional(SortOrderParam), ...DateRange, ...Pagination }),
    response: Type.Array(UpsertHistory), errors: [], list: true,
  },
  listAllUpsertHistory: {
    tag: 'upsert history', summary: 'List the upsert history of every chatflow',
    query: Query({ order: Type.Optional(SortOrderParam), ...DateRange, ...Pagination }),
    response: Type.Array(UpsertHistory), errors: [], list: true,
  },
  deleteUpsertHistory: {
    tag: 'upsert history', summary: 'Soft-delete upsert history records by id',
    params: ChatflowIdParam, body: UpsertHistoryDelete, response: Affected, errors: [400],
  },
  deleteAnyUpsertHistory: {
    tag: 'upsert history', summary: 'Soft-delete upsert history records by id',
    body: UpsertHistoryDelete, response: Affected, errors: [400],
  },
  ingestUpsertHistory: {
    tag: 'upsert history',
    summary: 'Ingest one upsert history record or an array of them (ids and dates kept; existing ids skipped)',
    params: ChatflowIdParam, body: OneOrMany(UpsertHistoryIngest), response: Affected, errors: [400], extension: true,
  },

  // ---- chatflow definitions (issue 33)
  listChatflows: {
    tag: 'chatflows',
    summary: 'The chatflows stored (by name), then the ids that only messages, feedback or upsert history name (id and name only)',
    query: Query({ type: Type.Optional(StringEnum(CHATFLOW_TYPES)) }),
    response: Type.Array(ChatflowListItem), errors: [],
  },
  getChatflow: {
    tag: 'chatflows', summary: 'Get a chatflow',
    params: ChatflowIdParam, response: ChatflowDefinition, errors: [400, 404],
  },
  createChatflow: {
    tag: 'chatflows',
    summary: 'Create a chatflow (flowData as JSON text, or the object itself)',
    body: ChatflowCreate, response: ChatflowDefinition, errors: [400, 422], invalidStatus: 422,
  },
  updateChatflow: {
    tag: 'chatflows', summary: 'Update a chatflow (given fields only)',
    params: ChatflowIdParam, body: ChatflowUpdate, response: ChatflowDefinition, errors: [400, 404],
  },
  deleteChatflow: {
    tag: 'chatflows',
    summary: "Delete a chatflow's definition (its messages, feedback and upsert history are kept)",
    params: ChatflowIdParam, response: Affected, errors: [400, 404],
  },
  importChatflows: {
    tag: 'chatflows',
    summary: 'Ingest an array of chatflows (ids and dates kept; existing ids skipped)',
    body: Many(ChatflowIngest), response: Affected, errors: [400], extension: true,
  },
  // ---- end chatflow definitions
} as const satisfies Record<RouteName, RouteDetails>;

export const routes = Object.fromEntries(
  (Object.keys(ROUTE_PATHS) as RouteName[]).map((name) => [name, { ...ROUTE_PATHS[name], ...details[name] }]),
) as { [N in RouteName]: (typeof ROUTE_PATHS)[N] & (typeof details)[N] };

export type { RouteName };
type Field<R, K extends string> = R extends Record<K, infer S extends TSchema> ? Static<S> : undefined;
export type RouteParams<N extends RouteName> = Field<(typeof routes)[N], 'params'>;
export type RouteQuery<N extends RouteName> = Field<(typeof routes)[N], 'query'>;
export type RouteBody<N extends RouteName> = Field<(typeof routes)[N], 'body'>;
