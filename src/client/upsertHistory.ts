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
     * `PATCH /upsert-history/{id}`: there only the ids that belong to that chatflow are sent to
     * `/upsert-history`, so the restriction to one chatflow still holds. No ids: nothing is sent.
     */
    delete: async (ids: readonly string[], chatflowId?: string): Promise<{ affected: number }> => {
      let affected = 0;
      let apiPath = historyPath(chatflowId);
      let keep: Set<string> | undefined;
      for (let i = 0; i < ids.length; i += MAX_IDS) {
        let batch = ids.slice(i, i + MAX_IDS);
        if (keep) batch = batch.filter((id) => keep!.has(id));
        try {
          if (batch.length) affected += await patch(apiPath, batch);
        } catch (err) {
          if (!(err instanceof ChatflowError && err.kind === 'unsupported' && chatflowId !== undefined && !keep)) throw err;
          keep = new Set<string>();
          for await (const record of core.stream<UpsertHistory>(historyPath(chatflowId))) keep.add(record.id);
          apiPath = '/upsert-history';
          batch = batch.filter((id) => keep!.has(id));
          if (batch.length) affected += await patch(apiPath, batch);
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
