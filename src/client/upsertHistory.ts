import type { UpsertHistory, UpsertHistoryIngest } from '../schema/resources.js';
import { type HttpCore, type JsonText, type ListResult, path } from './core.js';
import type { Dialect } from './dialect/index.js';
import { plannedList, plannedStream } from './listing.js';
import type { UpsertHistoryQuery } from './queries.js';

export type { UpsertHistoryQuery } from './queries.js';

/** The server's cap on ids per PATCH. */
const MAX_IDS = 10_000;

const historyPath = (chatflowId?: string) => (chatflowId === undefined ? '/upsert-history' : path`/upsert-history/${chatflowId}`);

export function upsertHistoryApi(core: HttpCore, dialect: () => Promise<Dialect>) {
  const patch = async (apiPath: string, ids: string[]) => (await core.affected('PATCH', apiPath, { body: { ids } })).affected;
  return {
    /** Without a chatflow id: the records of every chatflow. */
    list: async (chatflowId: string | undefined, query: UpsertHistoryQuery = {}): Promise<ListResult<UpsertHistory>> => {
      const { page, limit, ...filters } = query;
      return plannedList(core, historyPath(chatflowId), (await dialect()).upsertHistoryList(filters), { page, limit });
    },
    stream: async function* (chatflowId: string | undefined, query: UpsertHistoryQuery = {}): AsyncGenerator<UpsertHistory> {
      yield* plannedStream(core, historyPath(chatflowId), (await dialect()).upsertHistoryList(query));
    },
    /**
     * Soft-deletes records by id (Flowise deletes them for real). Flowise has no
     * `PATCH /upsert-history/{id}`: there only the ids that belong to that chatflow are sent to
     * `/upsert-history`, so the restriction to one chatflow still holds. No ids: nothing is sent.
     */
    delete: async (ids: readonly string[], chatflowId?: string): Promise<{ affected: number }> => {
      if (ids.length === 0) return { affected: 0 };
      let apiPath = historyPath(chatflowId);
      let keep: Set<string> | undefined;
      if (chatflowId !== undefined && (await dialect()).kind === 'flowise') {
        keep = new Set<string>();
        for await (const record of core.stream<UpsertHistory>(apiPath)) keep.add(record.id);
        apiPath = '/upsert-history';
      }
      let affected = 0;
      for (let i = 0; i < ids.length; i += MAX_IDS) {
        const batch = ids.slice(i, i + MAX_IDS).filter((id) => !keep || keep.has(id));
        if (batch.length) affected += await patch(apiPath, batch);
      }
      return { affected };
    },
    /** Our service's extension (ids and dates kept); sent in batches under the body limit. */
    ingest: (chatflowId: string, records: readonly (UpsertHistoryIngest | JsonText)[]): Promise<{ affected: number }> =>
      core.postBatches(historyPath(chatflowId), records),
  };
}

export type UpsertHistoryApi = ReturnType<typeof upsertHistoryApi>;
