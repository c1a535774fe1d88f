import { pageOf } from './query.js';
import type { HandlersFor } from './types.js';

export const variableRoutes: HandlersFor<
  'createVariable' | 'listVariables' | 'updateVariable' | 'deleteVariable' | 'importVariables' | 'setVariable'
> = {
  createVariable: { handle: ({ store, body }) => store.variables.create(body) },
  setVariable: { handle: ({ store, body }) => store.variables.set(body) },
  importVariables: { handle: async ({ store, body }) => ({ affected: await store.variables.ingest(body) }) },
  listVariables: { handle: ({ store, query }) => store.variables.list(pageOf(query)) },
  updateVariable: { handle: ({ store, params, body }) => store.variables.update(params.id, body) },
  deleteVariable: { handle: async ({ store, params }) => ({ affected: await store.variables.delete(params.id) }) },
};
