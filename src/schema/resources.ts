// The five record groups of the interface: each field is written once here, and the create,
// update and response shapes are derived from it.
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { DateInput, DateTime, FreeId, Nullable, StringEnum, Uuid } from './common.js';
import {
  ASSISTANT_TOOLS,
  ASSISTANT_TYPES,
  CHATFLOW_SETTINGS,
  CHATFLOW_TYPES,
  CHAT_TYPES,
  MESSAGE_ANY_JSON_FIELDS,
  MESSAGE_JSON_FIELDS,
  MESSAGE_LIST_FIELDS,
  MESSAGE_ROLES,
  RATINGS,
  VARIABLE_TYPES,
} from './enums.js';

export { ASSISTANT_TOOLS, ASSISTANT_TYPES, CHATFLOW_SETTINGS, CHATFLOW_TYPES, CHAT_TYPES, MESSAGE_JSON_FIELDS, MESSAGE_ROLES, RATINGS, VARIABLE_TYPES };

/** Marks every property optional: the update body of a resource. */
function optionalAll<P extends TProperties>(props: P) {
  return Type.Partial(Type.Object(props));
}

// ---------------------------------------------------------------- variables

const variableFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  value: Type.String({ maxLength: 65_536 }),
  type: Type.String({ minLength: 1, maxLength: 64, examples: [...VARIABLE_TYPES] }),
};
export const Variable = Type.Object(
  { id: Uuid, ...variableFields, createdDate: DateTime, updatedDate: DateTime },
);
export const VariableCreate = Type.Object({
  name: variableFields.name,
  value: Type.Optional(variableFields.value),
  type: Type.Optional(variableFields.type),
});
export const VariableUpdate = optionalAll(variableFields);
/** What `POST /variables/set` answers: the variable, and whether it was made (else updated). */
export const VariableSet = Type.Object({ variable: Variable, created: Type.Boolean() });

// ---------------------------------------------------------------- feedback

export const Rating = StringEnum(RATINGS);
const feedbackFields = {
  chatflowid: FreeId,
  chatId: FreeId,
  messageId: FreeId,
  rating: Rating,
  content: Type.String({ maxLength: 65_536 }),
};
export const Feedback = Type.Object(
  {
    id: Uuid,
    ...feedbackFields,
    content: Nullable(feedbackFields.content),
    createdDate: DateTime,
  },
);
export const FeedbackCreate = Type.Object({
  messageId: feedbackFields.messageId,
  rating: feedbackFields.rating,
  content: Type.Optional(feedbackFields.content),
  chatId: Type.Optional(feedbackFields.chatId),
  chatflowid: Type.Optional(feedbackFields.chatflowid),
});
export const FeedbackUpdate = optionalAll({ rating: feedbackFields.rating, content: feedbackFields.content });

// ---------------------------------------------------------------- assistants

const detailsFields = {
  id: Type.String({ maxLength: 255 }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.String({ maxLength: 65_536 }),
  model: Type.String({ maxLength: 255 }),
  instructions: Type.String({ maxLength: 262_144 }),
  temperature: Type.Number({ minimum: 0, maximum: 2 }),
  top_p: Type.Number({ minimum: 0, maximum: 1 }),
  tools: Type.Array(StringEnum(ASSISTANT_TOOLS), { maxItems: 64 }),
  tool_resources: Type.Object({}, { additionalProperties: true }),
};
/** Assistant definition; other provider-specific keys are kept as given. */
export const AssistantDetails = Type.Object(
  { ...Type.Partial(Type.Object(detailsFields)).properties, name: detailsFields.name },
  { additionalProperties: true },
);
const AssistantDetailsPatch = Type.Partial(Type.Object(detailsFields), { additionalProperties: true });
const assistantFields = {
  credential: Type.String({ maxLength: 255 }),
  iconSrc: Type.String({ maxLength: 2048 }),
  type: StringEnum(ASSISTANT_TYPES),
};
export const Assistant = Type.Object(
  {
    id: Uuid,
    details: AssistantDetails,
    credential: Nullable(assistantFields.credential),
    iconSrc: Nullable(assistantFields.iconSrc),
    type: assistantFields.type,
    createdDate: DateTime,
    updatedDate: DateTime,
  },
);
// `details` may also arrive as a JSON string (Flowise's form); the server parses it before validating.
export const AssistantCreate = Type.Object({
  details: AssistantDetails,
  ...Type.Partial(Type.Object(assistantFields)).properties,
});
export const AssistantUpdate = Type.Partial(
  Type.Object({ details: AssistantDetailsPatch, ...assistantFields }),
);

// ---------------------------------------------------------------- chat messages

const JsonList = Type.Union([Type.Array(Type.Unknown()), Type.Object({}, { additionalProperties: true })]);
const AnyJson = Type.Unknown({ description: 'any JSON value, as Flowise answers it' });
const messageFields = {
  role: StringEnum(MESSAGE_ROLES),
  chatflowid: FreeId,
  content: Type.String({ maxLength: 1_048_576 }),
  ...(Object.fromEntries(MESSAGE_LIST_FIELDS.map((f) => [f, JsonList])) as Record<
    (typeof MESSAGE_LIST_FIELDS)[number],
    typeof JsonList
  >),
  ...(Object.fromEntries(MESSAGE_ANY_JSON_FIELDS.map((f) => [f, AnyJson])) as Record<
    (typeof MESSAGE_ANY_JSON_FIELDS)[number],
    typeof AnyJson
  >),
  chatType: Type.String({ minLength: 1, maxLength: 64, examples: [...CHAT_TYPES] }),
  chatId: FreeId,
  memoryType: Type.String({ maxLength: 255 }),
  sessionId: Type.String({ maxLength: 255 }),
  leadEmail: Type.String({ maxLength: 255 }),
  // Flowise 3's: the follow-up prompts it suggested (JSON text, as it answers them), and the
  // agentflow execution that wrote the message.
  followUpPrompts: Type.String({ maxLength: 1_048_576 }),
  executionId: Type.String({ maxLength: 255 }),
};
type MessageFields = typeof messageFields;
const nullableMessageFields = Object.fromEntries(
  Object.entries(messageFields).map(([k, v]) => [k, Nullable(v as TSchema)]),
) as { [K in keyof MessageFields]: ReturnType<typeof Nullable<MessageFields[K]>> };

export const ChatMessage = Type.Object(
  {
    id: FreeId,
    ...nullableMessageFields,
    role: messageFields.role,
    chatflowid: messageFields.chatflowid,
    content: messageFields.content,
    chatType: messageFields.chatType,
    chatId: messageFields.chatId,
    createdDate: DateTime,
    feedback: Type.Optional(Nullable(Feedback)),
  },
);
/** Ingest: one message as exported (id and createdDate kept when given). */
export const ChatMessageIngest = Type.Object({
  ...Type.Partial(Type.Object(nullableMessageFields)).properties,
  id: Type.Optional(FreeId),
  role: messageFields.role,
  chatId: Type.Optional(messageFields.chatId),
  createdDate: Type.Optional(DateInput),
});

// ---------------------------------------------------------------- upsert history

/** `result` and `flowData` are stored as given: a JSON string stays a string, an object an object. */
const UpsertPayload = Type.Unknown({ description: 'JSON document, or a string holding one' });
export const UpsertHistory = Type.Object(
  { id: FreeId, chatflowid: FreeId, result: UpsertPayload, flowData: UpsertPayload, date: DateTime },
);
export const UpsertHistoryIngest = Type.Object({
  id: Type.Optional(FreeId),
  result: Type.Optional(UpsertPayload),
  flowData: Type.Optional(UpsertPayload),
  date: Type.Optional(DateInput),
});
export const UpsertHistoryDelete = Type.Object({
  ids: Type.Array(FreeId, { maxItems: 10_000 }),
});

// ---------------------------------------------------------------- chatflows

/** A chatflow as lists name it: its id and name (on our service, an id its records name has its id as name). */
export const Chatflow = Type.Object({ id: FreeId, name: Type.String() });

// ---- chatflow definitions (issue 33): the flows themselves, in Flowise's shape
/**
 * flowData is JSON text as Flowise keeps and answers it; a body may give the object itself, which
 * the server writes as text (see server/routes/chatflows.ts). Its settings are JSON text too.
 */
const FlowData = Type.String({ minLength: 2, maxLength: 3_145_728, description: 'JSON text of {nodes, edges}' });
const SettingText = Type.String({ maxLength: 1_048_576, description: 'JSON text' });
const JsonObject = Type.Object({}, { additionalProperties: true });
const chatflowFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  flowData: FlowData,
  type: StringEnum(CHATFLOW_TYPES),
  deployed: Nullable(Type.Boolean()),
  isPublic: Nullable(Type.Boolean()),
  apikeyid: Nullable(Type.String({ maxLength: 255 })),
  category: Nullable(Type.String({ maxLength: 65_536 })),
  ...(Object.fromEntries(CHATFLOW_SETTINGS.map((f) => [f, Nullable(SettingText)])) as Record<
    (typeof CHATFLOW_SETTINGS)[number],
    ReturnType<typeof Nullable<typeof SettingText>>
  >),
};
/** What a create or update takes: the JSON texts, or the objects they hold. */
const SettingInput = Type.Union([SettingText, JsonObject, Type.Array(Type.Unknown())]);
const chatflowInputs = {
  ...chatflowFields,
  flowData: Type.Union([FlowData, JsonObject]),
  ...(Object.fromEntries(CHATFLOW_SETTINGS.map((f) => [f, Nullable(SettingInput)])) as Record<
    (typeof CHATFLOW_SETTINGS)[number],
    ReturnType<typeof Nullable<typeof SettingInput>>
  >),
};
export const ChatflowDefinition = Type.Object({ id: FreeId, ...chatflowFields, createdDate: DateTime, updatedDate: DateTime });
/** A list's item: a definition, or (our service) only the id and name of a chatflow its records name. */
export const ChatflowListItem = Type.Object({ ...Type.Partial(ChatflowDefinition).properties, id: FreeId, name: Type.String() });
export const ChatflowCreate = Type.Object({
  ...Type.Partial(Type.Object(chatflowInputs)).properties,
  name: chatflowInputs.name,
  flowData: chatflowInputs.flowData,
  type: chatflowInputs.type,
});
export const ChatflowUpdate = optionalAll(chatflowInputs);
/** A chatflow's fields as the store keeps them (the texts). */
export const ChatflowFields = Type.Object({
  ...Type.Partial(Type.Object(chatflowFields)).properties,
  name: chatflowFields.name,
  flowData: chatflowFields.flowData,
  type: chatflowFields.type,
});
export const ChatflowIngest = Type.Object({
  ...ChatflowFields.properties,
  id: Type.Optional(FreeId),
  createdDate: Type.Optional(DateInput),
  updatedDate: Type.Optional(DateInput),
});
// ---- end chatflow definitions

// ---------------------------------------------------------------- ingest (import of an export)

/** Ingest of exported records: ids and dates kept when given, like ChatMessageIngest. */
export const VariableIngest = Type.Object({
  ...VariableCreate.properties,
  id: Type.Optional(Uuid),
  createdDate: Type.Optional(DateInput),
  updatedDate: Type.Optional(DateInput),
});
export const FeedbackIngest = Type.Object({
  ...FeedbackCreate.properties,
  content: Type.Optional(Nullable(feedbackFields.content)),
  id: Type.Optional(Uuid),
  createdDate: Type.Optional(DateInput),
});
export const AssistantIngest = Type.Object({
  details: AssistantDetails,
  credential: Type.Optional(Nullable(assistantFields.credential)),
  iconSrc: Type.Optional(Nullable(assistantFields.iconSrc)),
  type: Type.Optional(assistantFields.type),
  id: Type.Optional(Uuid),
  createdDate: Type.Optional(DateInput),
  updatedDate: Type.Optional(DateInput),
});

export type Variable = Static<typeof Variable>;
export type VariableCreate = Static<typeof VariableCreate>;
export type VariableUpdate = Static<typeof VariableUpdate>;
export type VariableSet = Static<typeof VariableSet>;
export type Feedback = Static<typeof Feedback>;
export type FeedbackCreate = Static<typeof FeedbackCreate>;
export type FeedbackUpdate = Static<typeof FeedbackUpdate>;
export type Rating = Static<typeof Rating>;
export type AssistantDetails = Static<typeof AssistantDetails>;
export type Assistant = Static<typeof Assistant>;
export type AssistantCreate = Static<typeof AssistantCreate>;
export type AssistantUpdate = Static<typeof AssistantUpdate>;
export type ChatMessage = Static<typeof ChatMessage>;
export type ChatMessageIngest = Static<typeof ChatMessageIngest>;
export type UpsertHistory = Static<typeof UpsertHistory>;
export type UpsertHistoryIngest = Static<typeof UpsertHistoryIngest>;
export type Chatflow = Static<typeof Chatflow>;
export type ChatflowDefinition = Static<typeof ChatflowDefinition>;
export type ChatflowListItem = Static<typeof ChatflowListItem>;
export type ChatflowCreate = Static<typeof ChatflowCreate>;
export type ChatflowUpdate = Static<typeof ChatflowUpdate>;
export type ChatflowFields = Static<typeof ChatflowFields>;
export type ChatflowIngest = Static<typeof ChatflowIngest>;
export type VariableIngest = Static<typeof VariableIngest>;
export type FeedbackIngest = Static<typeof FeedbackIngest>;
export type AssistantIngest = Static<typeof AssistantIngest>;
