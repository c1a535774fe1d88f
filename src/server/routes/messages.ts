import { MESSAGE_FILTERS } from '../../schema/filters.js';
import type { RouteQuery } from '../../schema/routes.js';
import { ServiceError } from '../errors.js';
import type { MessageFilter } from '../store/types.js';
import { storedBounds, pageOf, queryFlag, sortOrder } from './query.js';
import type { HandlersFor } from './types.js';

/** The filters list and delete share, as the store takes them: every row of the table. */
function messageFilter(chatflowid: string, q: RouteQuery<'deleteMessages'>): MessageFilter {
  const byKey = MESSAGE_FILTERS.filter((f) => f.match !== 'dateBound').map((f) => [f.key, q[f.key]]);
  return { chatflowid, ...(Object.fromEntries(byKey) as Omit<MessageFilter, 'chatflowid'>), ...storedBounds(q) };
}

export const messageRoutes: HandlersFor<'listMessages' | 'deleteMessages' | 'ingestMessages'> = {
  listMessages: {
    handle({ store, params, query }) {
      const withFeedback = queryFlag(query.feedback);
      return store.messages.list(
        {
          ...messageFilter(params.id, query),
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
      const affected = await store.messages.delete(messageFilter(params.id, query));
      if (affected === 0) throw new ServiceError(404, `no chat messages of chatflow ${params.id} match`);
      return { affected };
    },
  },
  ingestMessages: {
    async handle({ store, params, body }) {
      const affected = await store.messages.ingest(params.id, Array.isArray(body) ? body : [body]);
      return { affected };
    },
  },
};
