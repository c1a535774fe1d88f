import type { UpsertHistory, UpsertHistoryIngest } from '../schema/resources.js';
import { DEFAULT_PAGE_SIZE } from '../schema/limits.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore, JsonText, ListResult } from './core.js';
import type { IngestStream } from './ingest-stream.js';
import type { Dialect } from './dialect/index.js';
import { millis } from './dates.js';
import { ChatflowError } from './errors.js';
import { ofChatflow, plannedList, plannedStream } from './listing.js';
import type { UpsertHistoryQuery } from './queries.js';

export type { UpsertHistoryQuery } from './queries.js';

/** The server's cap on ids per PATCH. */
const MAX_IDS = 10_000;

/** The list's path: one chatflow's records, or every chatflow's (the PATCH's too). */
const historyPath = (chatflowId?: string) => (chatflowId === undefined ? routePath('listAllUpsertHistory') : routePath('listUpsertHistory', chatflowId));

export function upsertHistoryApi(core: HttpCore, dialect: () => Promise<Dialect>) {
  const planOf = async (chatflowId: string | undefined, query: UpsertHistoryQuery) => {
    const d = await dialect();
    return ofChatflow(d, chatflowId, d.upsertHistoryList(query));
  };
  /**
   * One PATCH; where the server deletes nothing of a batch naming an unknown id (Flowise 3.1.3+:
   * 404), the batch again one id at a time, so that what exists is deleted and the rest counted out.
   */
  const patch = async (d: Dialect, apiPath: string, ids: string[]): Promise<number> => {
    try {
      return (await core.affected('PATCH', apiPath, { body: { ids } })).affected;
    } catch (err) {
      if (!(d.upsertDeleteAllOrNothing && err instanceof ChatflowError && err.status === 404)) throw err;
      if (ids.length === 1) return 0;
      let affected = 0;
      for (const id of ids) affected += await patch(d, apiPath, [id]);
      return affected;
    }
  };
  /**
   * Every chatflow's records where the server answers one chatflow's only (Flowise 3.1.3+), in date
   * order as one list would be; undefined where one request answers them all.
   */
  const acrossChatflows = async (chatflowId: string | undefined, query: UpsertHistoryQuery): Promise<UpsertHistory[] | undefined> => {
    const d = await dialect();
    if (chatflowId !== undefined || !d.upsertHistoryByChatflow) return undefined;
    const all: UpsertHistory[] = [];
    for await (const flow of core.stream<{ id: string }>(routePath('listChatflows'))) {
      for await (const record of plannedStream(core, historyPath(flow.id), ofChatflow(d, flow.id, d.upsertHistoryList(query)))) all.push(record);
    }
    const sign = String(query.order ?? '').toUpperCase() === 'DESC' ? -1 : 1;
    return all.sort((a, b) => sign * (millis(a.date) - millis(b.date)));
  };
  return {
    /** Without a chatflow id: the records of every chatflow. */
    list: async (chatflowId: string | undefined, query: UpsertHistoryQuery = {}): Promise<ListResult<UpsertHistory>> => {
      const { page, limit, ...filters } = query;
      const all = await acrossChatflows(chatflowId, filters);
      if (all === undefined) return plannedList(core, historyPath(chatflowId), await planOf(chatflowId, filters), { page, limit });
      if (page === undefined && limit === undefined) return { items: all };
      const size = limit ?? DEFAULT_PAGE_SIZE;
      return { items: all.slice(((page ?? 1) - 1) * size, (page ?? 1) * size), total: all.length };
    },
    stream: async function* (chatflowId: string | undefined, query: UpsertHistoryQuery = {}): AsyncGenerator<UpsertHistory> {
      const all = await acrossChatflows(chatflowId, query);
      if (all !== undefined) return yield* all;
      yield* plannedStream(core, historyPath(chatflowId), await planOf(chatflowId, query));
    },
    /**
     * Deletes records by id: our service keeps them, never listed again; Flowise removes the rows
     * (`Dialect.upsertHistoryDelete`). Ids that match no record are not counted. Flowise has no
     * `PATCH /upsert-history/{id}`: there only the ids that belong to that chatflow are sent to
     * `/upsert-history`, so the restriction to one chatflow still holds. No ids: nothing is sent.
     */
    delete: async (ids: readonly string[], chatflowId?: string): Promise<{ affected: number }> => {
      if (ids.length === 0) return { affected: 0 };
      const d = await dialect();
      let apiPath = historyPath(chatflowId);
      let keep: Set<string> | undefined;
      if (chatflowId !== undefined && d.kind === 'flowise') {
        keep = new Set<string>();
        for await (const record of plannedStream(core, apiPath, ofChatflow(d, chatflowId, d.upsertHistoryList({})))) keep.add(record.id);
        apiPath = routePath('deleteAnyUpsertHistory');
      }
      let affected = 0;
      for (let i = 0; i < ids.length; i += MAX_IDS) {
        const batch = ids.slice(i, i + MAX_IDS).filter((id) => !keep || keep.has(id));
        if (batch.length) affected += await patch(d, apiPath, batch);
      }
      return { affected };
    },
    /** Our service's extension (ids and dates kept); sent in batches under the body limit. */
    ingest: (chatflowId: string, records: readonly (UpsertHistoryIngest | JsonText)[]): Promise<{ affected: number }> =>
      core.postBatches(routePath('ingestUpsertHistory', chatflowId), records),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (chatflowId: string): IngestStream => core.ingestStream(routePath('ingestUpsertHistory', chatflowId)),
  };
}

export type UpsertHistoryApi = ReturnType<typeof upsertHistoryApi>;
