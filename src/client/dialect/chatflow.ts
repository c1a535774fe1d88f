// Our service reads the interface as docs/spec/SEMANTICS.md decides: the query goes as given.
import { defined, flag } from '../queries.js';
import type { Dialect } from './types.js';

export const chatflowDialect: Dialect = {
  kind: 'chatflow',
  deleteTakesChatFeedback: false,
  noSuchChatflow: () => false,
  upsertHistoryDelete: 'soft',
  upsertDeleteAllOrNothing: false,
  upsertHistoryByChatflow: false,
  messageList: (q) => ({ query: defined({ ...q, feedback: flag(q.feedback) }), clientPages: false }),
  messageDelete: (q) => {
    const { hardDelete, ...filters } = q;
    return {
      query: defined({ ...filters, hardDelete: flag(hardDelete) }),
      // feedbackType narrows a listing only together with feedback.
      listing: chatflowDialect.messageList({ ...filters, feedback: filters.feedbackType ? true : undefined }),
    };
  },
  feedbackList: ({ sortOrder, order, ...rest }) => ({ query: defined({ ...rest, order: order ?? sortOrder }), clientPages: false }),
  upsertHistoryList: (q) => ({ query: defined(q), clientPages: false }),
};
