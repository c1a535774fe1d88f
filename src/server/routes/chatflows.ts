// Chatflow definitions (issue 33). Flowise takes flowData and the settings only as JSON text (an
// object there is a 500); here an object is taken too and written as its JSON text, so that a
// file of `chatflow chatflows export` can be sent as it is.
import { CHATFLOW_SETTINGS } from '../../schema/enums.js';
import type { ChatflowFields, ChatflowIngest } from '../../schema/resources.js';
import { ServiceError } from '../errors.js';
import type { HandlersFor } from './types.js';

const TEXT_FIELDS = ['flowData', ...CHATFLOW_SETTINGS] as const;

/** Objects and arrays given for the JSON text fields, as text (before validation checks the text). */
function asTexts(request: { body: unknown }): void {
  const body = request.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  for (const key of TEXT_FIELDS) {
    const v = body[key];
    // (flowData is an object; a setting may be an array too, as the schema says.)
    if (v !== null && typeof v === 'object' && (key !== 'flowData' || !Array.isArray(v))) body[key] = JSON.stringify(v);
  }
}

/** Text given for them must be JSON (a setting may be empty); answers the body as the texts it now holds. */
function checkTexts<T>(body: object, status: 400 | 422, at = ''): T {
  const fields = body as Record<string, unknown>;
  for (const key of TEXT_FIELDS) {
    const v = fields[key];
    if (typeof v !== 'string' || (v === '' && key !== 'flowData')) continue;
    try {
      JSON.parse(v);
    } catch {
      throw new ServiceError(status, `${at}${key} must be JSON (an object, or a string holding one)`);
    }
  }
  return body as T;
}

export const chatflowRoutes: HandlersFor<
  'listChatflows' | 'getChatflow' | 'createChatflow' | 'updateChatflow' | 'deleteChatflow' | 'importChatflows'
> = {
  listChatflows: { handle: ({ store, query }) => store.listAllChatflows(query.type) },
  getChatflow: { handle: ({ store, params }) => store.chatflows.get(params.id) },
  createChatflow: { preValidation: asTexts, handle: ({ store, body }) => store.chatflows.create(checkTexts<ChatflowFields>(body, 422)) },
  updateChatflow: { preValidation: asTexts, handle: ({ store, params, body }) => store.chatflows.update(params.id, checkTexts<Partial<ChatflowFields>>(body, 400)) },
  deleteChatflow: { handle: async ({ store, params }) => ({ affected: await store.chatflows.delete(params.id) }) },
  importChatflows: {
    handle: async ({ store, body }) => ({ affected: await store.chatflows.ingest(body.map((c, i) => checkTexts<ChatflowIngest>(c, 400, `[${i}].`))) }),
  },
};
