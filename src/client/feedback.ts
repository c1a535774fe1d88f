import type { Feedback, FeedbackCreate, FeedbackIngest, FeedbackUpdate } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { type HttpCore, type ListResult, type QueryInput, path } from './core.js';

export type FeedbackListQuery = RouteQuery<'listFeedback'>;

/**
 * The sort order goes out as `order`, the name both servers read (the interface's `sortOrder` is
 * accepted by our service only; Flowise ignores it).
 */
function feedbackQuery({ sortOrder, order, ...rest }: FeedbackListQuery): QueryInput {
  return { ...rest, order: order ?? sortOrder };
}

export function feedbackApi(core: HttpCore) {
  return {
    list: (chatflowId: string, query: FeedbackListQuery = {}): Promise<ListResult<Feedback>> =>
      core.list(path`/feedback/${chatflowId}`, feedbackQuery(query)),
    stream: (chatflowId: string, query: FeedbackListQuery = {}): AsyncIterable<Feedback> =>
      core.stream(path`/feedback/${chatflowId}`, feedbackQuery(query)),
    create: (body: FeedbackCreate): Promise<Feedback> => core.json('POST', '/feedback', { body }),
    /**
     * Our service answers the updated feedback. Flowise answers `{"status":"OK"}` and has no route
     * to read one feedback by id, so the result is then the given fields merged with the id.
     */
    update: async (id: string, body: FeedbackUpdate): Promise<Feedback | (FeedbackUpdate & { id: string })> => {
      const answer = await core.json<Partial<Feedback> | undefined>('PUT', path`/feedback/${id}`, { body });
      return answer && typeof answer === 'object' && typeof answer.id === 'string' ? (answer as Feedback) : { ...body, id };
    },
    /**
     * Our service's extension (ids and dates kept; existing ids and messages already rated are
     * skipped; the messages must exist); sent in batches under the body limit.
     */
    ingest: (feedback: readonly FeedbackIngest[]): Promise<{ affected: number }> =>
      core.postBatches('/feedback/import', feedback),
  };
}

export type FeedbackApi = ReturnType<typeof feedbackApi>;
