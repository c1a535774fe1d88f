import { notFound } from '../errors.js';
import { pageOf } from './query.js';
import type { HandlersFor } from './types.js';

export const variableRoutes: HandlersFor<
  'createVariable' | 'listVariables' | 'updateVariable' | 'deleteVariable' | 'importVariables'
> = {
  createVariable: { handle: ({ store, body }) => store.createVariable(body) },
  importVariables: { handle: async ({ store, body }) => ({ affected: await store.ingestVariables(body) }) },
  listVariables: { handle: ({ store, query }) => store.listVariables(pageOf(query)) },
  updateVariable: {
    async handle({ store, params, body }) {
      return (await store.updateVariable(params.id, body)) ?? Promise.reject(notFound('variable', params.id));
    },
  },
  deleteVariable: {
    async handle({ store, params }) {
      const affected = await store.deleteVariable(params.id);
      if (affected === 0) throw notFound('variable', params.id);
      return { affected };
    },
  },
};
