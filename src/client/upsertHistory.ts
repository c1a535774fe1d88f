import type { UpsertHistory, UpsertHistoryIngest } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { type HttpCore, type ListResult, path } from './core.js';
import { ChatflowError } from './errors.js';

export type UpsertHistoryQuery = RouteQuery<'listUpsertHistory'>;

/** The server's cap on ids per PATCH. */
const MAX_IDS = 10_000;

const historyPath = (chatflowId?: string) => (chatflowId === undefined ? '/upsert-history' : path`/upsert-history/${chatflowId}`);

export function upsertHistoryApi(core: HttpCore) {
  const patch = async (apiPath: string, ids: string[]) => (await core.affected('PATCH', apiPath, { body: { ids } })).affected;
  return {
    /** Without a chatflow id: the records of every chatflow. */
    list: (chatflowId: string | undefined, query: UpsertHistoryQuery = {}): Promise<ListResult<UpsertHistory>> =>
      core.list(historyPath(chatflowId), query),
    stream: (chatflowId: string | undefined, query: UpsertHistoryQuery = {}): AsyncIterable<UpsertHistory> =>
      core.stream(historyPath(chatflowId), query),
    /**
     * Soft-deletes records by id (Flowise deletes them for real). Flowise has no
     * `PATCH /upsert-history/{id}`: there the ids are sent to `/upsert-history` instead (ids name
     * records uniquely). No ids: nothing is sent.
     */
    delete: async (ids: readonly string[], chatflowId?: string): Promise<{ affected: number }> => {
      let affected = 0;
      let apiPath = historyPath(chatflowId);
      for (let i = 0; i < ids.length; i += MAX_IDS) {
        const batch = ids.slice(i, i + MAX_IDS);
        try {
          affected += await patch(apiPath, batch);
        } catch (err) {
          if (!(err instanceof ChatflowError && err.kind === 'unsupported' && apiPath !== '/upsert-history')) throw err;
          apiPath = '/upsert-history';
          affected += await patch(apiPath, batch);
        }
      }
      return { affected };
    },
    /** Our service's extension (ids and dates kept); sent in batches under the body limit. */
    ingest: (chatflowId: string, records: readonly UpsertHistoryIngest[]): Promise<{ affected: number }> =>
      core.postBatches(historyPath(chatflowId), records),
  };
}

export type UpsertHistoryApi = ReturnType<typeof upsertHistoryApi>;
