// Upsert history: records are soft-deleted (kept with a deletedDate, never listed again).
import { randomUUID } from 'node:crypto';
import type { SortOrder } from '../../schema/common.js';
import type { UpsertHistory, UpsertHistoryIngest } from '../../schema/resources.js';
import { iso, rangeConditions, type AnyEb, rowsOf, type Engine } from './engine.js';
import { now, storedDate } from './dates.js';
import type { UpsertHistoryRow } from './tables.js';
import type { Listing, PageRequest, UpsertFilter, UpsertHistoryRepository } from './types.js';

const toUpsert = (r: UpsertHistoryRow): UpsertHistory => ({
  id: r.id,
  chatflowid: r.chatflowid,
  result: JSON.parse(r.result),
  flowData: JSON.parse(r.flowData),
  date: iso(r.date),
});

export class KyselyUpsertHistory implements UpsertHistoryRepository {
  constructor(private readonly engine: Engine) {}

  list(filter: UpsertFilter, order: SortOrder, page: PageRequest): Promise<Listing<UpsertHistory>> {
    return this.engine.listing(
      () =>
        this.engine.db
          .selectFrom('upsert_history')
          .selectAll()
          .where((eb) =>
            eb.and([
              eb('deletedDate', 'is', null),
              ...(filter.chatflowid !== undefined ? [eb('chatflowid', '=', filter.chatflowid)] : []),
              ...rangeConditions(eb as AnyEb, 'date', filter),
            ]),
          ),
      { column: 'date', key: 'date', id: 'id', order },
      page,
      toUpsert,
    );
  }

  async softDelete(chatflowid: string | undefined, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    let query = this.engine.db
      .updateTable('upsert_history')
      .set({ deletedDate: now() })
      .where('id', 'in', ids)
      .where('deletedDate', 'is', null);
    if (chatflowid !== undefined) query = query.where('chatflowid', '=', chatflowid);
    const r = await query.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  ingest(chatflowid: string, records: UpsertHistoryIngest[]): Promise<number> {
    const at = now();
    const rows = records.map(
      (r): UpsertHistoryRow => ({
        id: r.id ?? randomUUID(),
        chatflowid,
        result: JSON.stringify(r.result ?? {}),
        flowData: JSON.stringify(r.flowData ?? {}),
        date: storedDate(r.date, at),
        deletedDate: null,
      }),
    );
    return this.engine.insertAll('upsert_history', ...rowsOf(rows));
  }
}
