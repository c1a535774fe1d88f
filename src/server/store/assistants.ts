// KyselyAssistants: `details` is kept as JSON text and merged key by key on update.
import { randomUUID } from 'node:crypto';
import type { Assistant, AssistantCreate, AssistantDetails, AssistantIngest, AssistantUpdate } from '../../schema/resources.js';
import { iso, pick, rowsOf, type Engine } from './engine.js';
import { now, storedDate } from './dates.js';
import { NotFound } from './errors.js';
import type { AssistantRow } from './tables.js';
import type { AssistantRepository, Listing, PageRequest } from './types.js';

const toAssistant = (r: AssistantRow): Assistant => ({
  id: r.id,
  details: JSON.parse(r.details) as AssistantDetails,
  credential: r.credential,
  iconSrc: r.iconSrc,
  type: r.type as Assistant['type'],
  createdDate: iso(r.createdDate),
  updatedDate: iso(r.updatedDate),
});

/**
 * A new row with the interface's defaults. Ingest keeps a record's id and dates (`kept`); create
 * makes them, whatever the body says (they are not the caller's to choose).
 */
function toRow(a: AssistantIngest, at: string, kept: boolean): AssistantRow {
  const createdDate = kept ? storedDate(a.createdDate, at) : at;
  return {
    id: (kept && a.id) || randomUUID(),
    details: JSON.stringify(a.details),
    credential: a.credential ?? null,
    iconSrc: a.iconSrc ?? null,
    type: a.type ?? 'CUSTOM',
    createdDate,
    updatedDate: kept ? storedDate(a.updatedDate, createdDate) : at,
  };
}

export class KyselyAssistants implements AssistantRepository {
  constructor(private readonly engine: Engine) {}

  async create(input: AssistantCreate): Promise<Assistant> {
    const row = toRow(input, now(), false);
    await this.engine.db.insertInto('assistant').values(row).execute();
    return toAssistant(row);
  }

  list(type: Assistant['type'] | undefined, page: PageRequest): Promise<Listing<Assistant>> {
    return this.engine.listing(
      () => {
        const q = this.engine.db.selectFrom('assistant').selectAll();
        return type === undefined ? q : q.where('type', '=', type);
      },
      { column: 'createdDate', key: 'createdDate', id: 'id', order: 'asc' },
      page,
      toAssistant,
    );
  }

  async get(id: string): Promise<Assistant> {
    const row = await this.engine.db.selectFrom('assistant').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFound('assistant', id);
    return toAssistant(row);
  }

  update(id: string, patch: AssistantUpdate): Promise<Assistant> {
    const { db, kind } = this.engine;
    return db.transaction().execute(async (trx) => {
      // details are merged: the row stays locked from this read to the write, or two merges at
      // once would each write their own key over the other's (SQLite's transactions are
      // IMMEDIATE, which locks as much already).
      const select = trx.selectFrom('assistant').selectAll().where('id', '=', id);
      const current = await (kind === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
      if (!current) throw new NotFound('assistant', id);
      const details = patch.details ? { ...JSON.parse(current.details), ...patch.details } : undefined;
      const row = await trx
        .updateTable('assistant')
        .set({
          ...pick(patch, ['credential', 'iconSrc', 'type']),
          ...(details ? { details: JSON.stringify(details) } : {}),
          updatedDate: now(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAssistant(row);
    });
  }

  delete(id: string): Promise<number> {
    return this.engine.deleteById('assistant', 'assistant', id);
  }

  ingest(assistants: AssistantIngest[]): Promise<number> {
    const at = now();
    return this.engine.insertAll('assistant', ...rowsOf(assistants.map((a) => toRow(a, at, true))));
  }
}
