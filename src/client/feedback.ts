import type { Feedback, FeedbackCreate, FeedbackIngest, FeedbackUpdate } from '../schema/resources.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore, JsonText, ListResult } from './core.js';
import type { IngestStream } from './ingest-stream.js';
import type { Dialect } from './dialect/index.js';
import { ofChatflow, plannedList, plannedStream } from './listing.js';
import type { FeedbackListQuery } from './queries.js';

export type { FeedbackListQuery } from './queries.js';

export function feedbackApi(core: HttpCore, dialect: () => Promise<Dialect>) {
  const planOf = async (chatflowId: string, query: FeedbackListQuery) => {
    const d = await dialect();
    return ofChatflow(d, chatflowId, d.feedbackList(query));
  };
  return {
    /** The sort order goes out as `order`, the name both servers read (Flowise ignores `sortOrder`). */
    list: async (chatflowId: string, query: FeedbackListQuery = {}): Promise<ListResult<Feedback>> => {
      const { page, limit, ...filters } = query;
      return plannedList(core, routePath('listFeedback', chatflowId), await planOf(chatflowId, filters), { page, limit });
    },
    stream: async function* (chatflowId: string, query: FeedbackListQuery = {}): AsyncGenerator<Feedback> {
      yield* plannedStream(core, routePath('listFeedback', chatflowId), await planOf(chatflowId, query));
    },
    create: (body: FeedbackCreate): Promise<Feedback> => core.json('POST', routePath('createFeedback'), { body }),
    /**
     * Our service answers the updated feedback. Flowise answers `{"status":"OK"}` and has no route
     * to read one feedback by id, so the result is then the given fields merged with the id.
     */
    update: async (id: string, body: FeedbackUpdate): Promise<Feedback | (FeedbackUpdate & { id: string })> => {
      const answer = await core.json<Partial<Feedback> | undefined>('PUT', routePath('updateFeedback', id), { body });
      return answer && typeof answer === 'object' && typeof answer.id === 'string' ? (answer as Feedback) : { ...body, id };
    },
    /**
     * Our service's extension (ids and dates kept; existing ids and messages already rated are
     * skipped; the messages must exist); sent in batches under the body limit.
     */
    ingest: (feedback: readonly (FeedbackIngest | JsonText)[]): Promise<{ affected: number }> =>
      core.postBatches(routePath('importFeedback'), feedback),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (): IngestStream => core.ingestStream(routePath('importFeedback')),
  };
}

export type FeedbackApi = ReturnType<typeof feedbackApi>;
