import { CHATS_PAGE_SIZE } from '../../schema/limits.js';
import { storedBounds } from './query.js';
import type { HandlersFor } from './types.js';

export const chatRoutes: HandlersFor<'listChats'> = {
  listChats: {
    async handle({ store, params, query }) {
      const { chatType, sessionId, feedbackType, search, chatIdStart } = query;
      const page = { page: query.page ?? 1, limit: query.limit ?? CHATS_PAGE_SIZE };
      const { total, items } = await store.messages.chats({ chatflowid: params.id, chatType, sessionId, feedbackType, search, chatIdStart, ...storedBounds(query) }, page);
      return { total, rows: [items] };
    },
  },
};
