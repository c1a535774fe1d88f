import { checkJson } from '../body.js';
import { ServiceError } from '../errors.js';
import { pageOf } from './query.js';
import type { HandlersFor } from './types.js';

/** Flowise sends `details` as a JSON string: accept that form and validate the object in it. */
function parseDetails(status: 400 | 422) {
  return (request: { body: unknown }) => {
    const body = request.body as { details?: unknown } | null;
    if (!body || typeof body !== 'object' || typeof body.details !== 'string') return;
    let details: unknown;
    try {
      details = JSON.parse(body.details);
    } catch {
      throw new ServiceError(status, 'details must be an object or a string holding a JSON object');
    }
    // Refused inside the string as in the body itself (keys, Unicode, depth).
    checkJson(details, 'details');
    body.details = details;
  };
}

export const assistantRoutes: HandlersFor<
  'createAssistant' | 'listAssistants' | 'getAssistant' | 'updateAssistant' | 'deleteAssistant' | 'importAssistants'
> = {
  createAssistant: { preValidation: parseDetails(422), handle: ({ store, body }) => store.assistants.create(body) },
  importAssistants: { handle: async ({ store, body }) => ({ affected: await store.assistants.ingest(body) }) },
  listAssistants: { handle: ({ store, query }) => store.assistants.list(query.type, pageOf(query)) },
  getAssistant: { handle: ({ store, params }) => store.assistants.get(params.id) },
  updateAssistant: { preValidation: parseDetails(400), handle: ({ store, params, body }) => store.assistants.update(params.id, body) },
  deleteAssistant: { handle: async ({ store, params }) => ({ affected: await store.assistants.delete(params.id) }) },
};
