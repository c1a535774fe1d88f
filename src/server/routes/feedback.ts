import { storedBounds, pageOf, sortOrder } from './query.js';
import type { HandlersFor } from './types.js';

export const feedbackRoutes: HandlersFor<'listFeedback' | 'createFeedback' | 'updateFeedback' | 'importFeedback'> = {
  listFeedback: {
    handle: ({ store, params, query }) =>
      store.feedback.list(
        { chatflowid: params.id, chatId: query.chatId, ...storedBounds(query) },
        sortOrder(query.sortOrder, query.order),
        pageOf(query),
      ),
  },
  createFeedback: { handle: ({ store, body }) => store.feedback.create(body) },
  importFeedback: { handle: async ({ store, body }) => ({ affected: await store.feedback.ingest(body) }) },
  updateFeedback: { handle: ({ store, params, body }) => store.feedback.update(params.id, body) },
};
