// KyselyVariables: a plain table, listed most recently updated first.
import { randomUUID } from 'node:crypto';
import type { Variable, VariableCreate, VariableIngest, VariableUpdate } from '../../schema/resources.js';
import { iso, now, pick, storedDate, type Engine } from './engine.js';
import { NotFound } from './errors.js';
import type { VariableRow } from './tables.js';
import type { Listing, PageRequest, VariableRepository } from './types.js';

const toVariable = (r: VariableRow): Variable => ({
  id: r.id,
  name: r.name,
  value: r.value,
  type: r.type,
  createdDate: iso(r.createdDate),
  updatedDate: iso(r.updatedDate),
});

export class KyselyVariables implements VariableRepository {
  constructor(private readonly engine: Engine) {}

  async create(input: VariableCreate): Promise<Variable> {
    const at = now();
    const row: VariableRow = {
      id: randomUUID(),
      name: input.name,
      value: input.value ?? '',
      type: input.type ?? 'static',
      createdDate: at,
      updatedDate: at,
    };
    await this.engine.db.insertInto('variable').values(row).execute();
    return toVariable(row);
  }

  list(page: PageRequest): Promise<Listing<Variable>> {
    return this.engine.listing(
      () => this.engine.db.selectFrom('variable').selectAll(),
      { column: 'updatedDate', key: 'updatedDate', id: 'id', order: 'desc' },
      page,
      toVariable,
    );
  }

  async update(id: string, patch: VariableUpdate): Promise<Variable> {
    const row = await this.engine.db
      .updateTable('variable')
      .set({ ...pick(patch, ['name', 'value', 'type']), updatedDate: now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new NotFound('variable', id);
    return toVariable(row);
  }

  async delete(id: string): Promise<number> {
    const r = await this.engine.db.deleteFrom('variable').where('id', '=', id).executeTakeFirst();
    if (r.numDeletedRows === 0n) throw new NotFound('variable', id);
    return Number(r.numDeletedRows);
  }

  ingest(variables: VariableIngest[]): Promise<number> {
    const at = now();
    const rows = variables.map((v): VariableRow => {
      const createdDate = storedDate(v.createdDate, at);
      return {
        id: v.id ?? randomUUID(),
        name: v.name,
        value: v.value ?? '',
        type: v.type ?? 'static',
        createdDate,
        updatedDate: storedDate(v.updatedDate, createdDate),
      };
    });
    return this.engine.insertAll('variable', rows);
  }
}
