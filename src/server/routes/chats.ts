import { dateRange } from './query.js';
import type { HandlersFor } from './types.js';

/** A page unless asked otherwise: a chatflow's chats are summed up a page at a time. */
const DEFAULT_LIMIT = 20;

export const chatRoutes: HandlersFor<'listChats'> = {
  listChats: {
    async handle({ store, params, query }) {
      const { chatType, sessionId, feedbackType, search, chatIdStart } = query;
      const page = { page: query.page ?? 1, limit: query.limit ?? DEFAULT_LIMIT };
      const { total, items } = await store.messages.chats({ chatflowid: params.id, chatType, sessionId, feedbackType, search, chatIdStart, ...dateRange(query) }, page);
      return { total, rows: [items] };
    },
  },
};
