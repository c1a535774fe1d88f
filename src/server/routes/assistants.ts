import type { FastifyRequest } from 'fastify';
import { ServiceError, notFound } from '../errors.js';
import { pageOf } from './query.js';
import type { HandlersFor } from './types.js';

/** Flowise sends `details` as a JSON string: accept that form and validate the object in it. */
function parseDetails(status: 400 | 422) {
  return (request: FastifyRequest) => {
    const body = request.body as { details?: unknown } | null;
    if (!body || typeof body !== 'object' || typeof body.details !== 'string') return;
    try {
      body.details = JSON.parse(body.details);
    } catch {
      throw new ServiceError(status, 'details must be an object or a string holding a JSON object');
    }
  };
}

export const assistantRoutes: HandlersFor<
  'createAssistant' | 'listAssistants' | 'getAssistant' | 'updateAssistant' | 'deleteAssistant' | 'importAssistants'
> = {
  createAssistant: { preValidation: parseDetails(422), handle: ({ store, body }) => store.createAssistant(body) },
  importAssistants: { handle: async ({ store, body }) => ({ affected: await store.ingestAssistants(body) }) },
  listAssistants: { handle: ({ store, query }) => store.listAssistants(query.type, pageOf(query)) },
  getAssistant: {
    async handle({ store, params }) {
      return (await store.getAssistant(params.id)) ?? Promise.reject(notFound('assistant', params.id));
    },
  },
  updateAssistant: {
    preValidation: parseDetails(400),
    async handle({ store, params, body }) {
      return (await store.updateAssistant(params.id, body)) ?? Promise.reject(notFound('assistant', params.id));
    },
  },
  deleteAssistant: {
    async handle({ store, params }) {
      const affected = await store.deleteAssistant(params.id);
      if (affected === 0) throw notFound('assistant', params.id);
      return { affected };
    },
  },
};
