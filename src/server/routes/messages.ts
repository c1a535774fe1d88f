import { ServiceError } from '../errors.js';
import { dateRange, pageOf, queryFlag, sortOrder } from './query.js';
import type { HandlersFor } from './types.js';

export const messageRoutes: HandlersFor<'listMessages' | 'deleteMessages' | 'ingestMessages'> = {
  listMessages: {
    handle({ store, params, query }) {
      const withFeedback = queryFlag(query.feedback);
      return store.listMessages(
        {
          chatflowid: params.id,
          chatTypes: query.chatType,
          chatId: query.chatId,
          memoryType: query.memoryType,
          sessionId: query.sessionId,
          ...dateRange(query),
          withFeedback,
          // The interface applies feedbackType only together with feedback=true.
          feedbackType: withFeedback ? query.feedbackType : undefined,
        },
        sortOrder(query.order),
        pageOf(query),
      );
    },
  },
  deleteMessages: {
    async handle({ store, params, query }) {
      // hardDelete asks Flowise to clear third-party memory too; the embedded service keeps none.
      const affected = await store.deleteMessages({
        chatflowid: params.id,
        chatTypes: query.chatType,
        chatId: query.chatId,
        memoryType: query.memoryType,
        sessionId: query.sessionId,
        ...dateRange(query),
        feedbackType: query.feedbackType,
      });
      if (affected === 0) throw new ServiceError(404, `no chat messages of chatflow ${params.id} match`);
      return { affected };
    },
  },
  ingestMessages: {
    async handle({ store, params, body }) {
      const affected = await store.ingestMessages(params.id, Array.isArray(body) ? body : [body]);
      return { affected };
    },
  },
};
