// KyselyAssistants: `details` is kept as JSON text and merged key by key on update.
import { randomUUID } from 'node:crypto';
import type { Assistant, AssistantCreate, AssistantDetails, AssistantIngest, AssistantUpdate } from '../../schema/resources.js';
import { iso, now, pick, storedDate, type Engine } from './engine.js';
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

export class KyselyAssistants implements AssistantRepository {
  constructor(private readonly engine: Engine) {}

  async create(input: AssistantCreate): Promise<Assistant> {
    const at = now();
    const row: AssistantRow = {
      id: randomUUID(),
      details: JSON.stringify(input.details),
      credential: input.credential ?? null,
      iconSrc: input.iconSrc ?? null,
      type: input.type ?? 'CUSTOM',
      createdDate: at,
      updatedDate: at,
    };
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

  async delete(id: string): Promise<number> {
    const r = await this.engine.db.deleteFrom('assistant').where('id', '=', id).executeTakeFirst();
    if (r.numDeletedRows === 0n) throw new NotFound('assistant', id);
    return Number(r.numDeletedRows);
  }

  ingest(assistants: AssistantIngest[]): Promise<number> {
    const at = now();
    const rows = assistants.map((a): AssistantRow => {
      const createdDate = storedDate(a.createdDate, at);
      return {
        id: a.id ?? randomUUID(),
        details: JSON.stringify(a.details),
        credential: a.credential ?? null,
        iconSrc: a.iconSrc ?? null,
        type: a.type ?? 'CUSTOM',
        createdDate,
        updatedDate: storedDate(a.updatedDate, createdDate),
      };
    });
    return this.engine.insertAll('assistant', rows);
  }
}
