// The interface's enumerations as plain constants: the schema builds on them, and the CLI reads
// them (flag checks, completion) without loading the schema library.
export const VARIABLE_TYPES = ['static', 'runtime'] as const;
export const RATINGS = ['THUMBS_UP', 'THUMBS_DOWN'] as const;
export const ASSISTANT_TOOLS = ['function', 'code_interpreter', 'file_search'] as const;
export const ASSISTANT_TYPES = ['CUSTOM', 'OPENAI', 'AZURE'] as const;
export const MESSAGE_ROLES = ['userMessage', 'apiMessage'] as const;
/** Flowise's chat types: EVALUATION since 3.0.1, MCP, SCHEDULED and WEBHOOK since 3.1.3 (its Interface.ts). */
export const CHAT_TYPES = ['INTERNAL', 'EXTERNAL', 'EVALUATION', 'MCP', 'SCHEDULED', 'WEBHOOK'] as const;
/** Structured message fields that hold a list or an object: answered as such, never as strings. */
export const MESSAGE_LIST_FIELDS = [
  'sourceDocuments',
  'usedTools',
  'fileAnnotations',
  'agentReasoning',
  'fileUploads',
  'action',
] as const;
/** Flowise 3's structured message fields that may hold any JSON value (it answers them parsed). */
export const MESSAGE_ANY_JSON_FIELDS = ['artifacts', 'reasonContent'] as const;
/** Structured message fields: stored as JSON text, answered as the value it holds. */
export const MESSAGE_JSON_FIELDS = [...MESSAGE_LIST_FIELDS, ...MESSAGE_ANY_JSON_FIELDS] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;
// ---- chatflow definitions (issue 33)
/** Flowise's kinds of flow (its `type` column): chatflows, agentflows (v2), multi-agent flows, assistants. */
export const CHATFLOW_TYPES = ['CHATFLOW', 'AGENTFLOW', 'MULTIAGENT', 'ASSISTANT'] as const;
/** A chatflow's settings Flowise keeps as JSON text beside its flowData (null when unset). */
export const CHATFLOW_SETTINGS = [
  'chatbotConfig',
  'apiConfig',
  'analytic',
  'speechToText',
  'textToSpeech',
  'followUpPrompts',
  'mcpServerConfig',
] as const;
