import { notFound } from '../errors.js';
import { dateRange, pageOf, sortOrder } from './query.js';
import type { HandlersFor } from './types.js';

export const feedbackRoutes: HandlersFor<'listFeedback' | 'createFeedback' | 'updateFeedback' | 'importFeedback'> = {
  listFeedback: {
    handle: ({ store, params, query }) =>
      store.listFeedback(
        { chatflowid: params.id, chatId: query.chatId, ...dateRange(query) },
        sortOrder(query.sortOrder, query.order),
        pageOf(query),
      ),
  },
  createFeedback: { handle: ({ store, body }) => store.createFeedback(body) },
  importFeedback: { handle: async ({ store, body }) => ({ affected: await store.ingestFeedback(body) }) },
  updateFeedback: {
    async handle({ store, params, body }) {
      return (await store.updateFeedback(params.id, body)) ?? Promise.reject(notFound('feedback', params.id));
    },
  },
};
