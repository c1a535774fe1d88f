// KyselyVariables: a plain table, listed most recently updated first.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Variable, VariableCreate, VariableIngest, VariableSet, VariableUpdate } from '../../schema/resources.js';
import { iso, jsonObject, pick, type AnySelect, rowsOf, type Engine } from './engine.js';
import { now, storedDate } from './dates.js';
import { Conflict, NotFound } from './errors.js';
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

/** The keys of toVariable, in its order. */
const VARIABLE_KEYS = ['id', 'name', 'value', 'type', 'createdDate', 'updatedDate'] as const;

/**
 * SQLite: a variable as the database itself writes it in JSON, the very text
 * JSON.stringify(toVariable(row)) gives (dates are stored as those ISO strings), as messages are
 * (messages.ts). GET /variables is then one row of joined texts from the driver instead of an
 * object a row made by the driver, another by toVariable and a stringify of each: 20 variables
 * in some 20-30 µs of CPU instead of 40-50 (bench/million.js's GET /variables). PostgreSQL lists
 * them as rows (at 0.66 of a bare handler's rate there).
 */
const VARIABLE_JSON = jsonObject(VARIABLE_KEYS);

/**
 * A new row with the interface's defaults. Ingest keeps a record's id and dates (`kept`); create
 * makes them, whatever the body says (they are not the caller's to choose).
 */
function toRow(v: VariableIngest, at: string, kept: boolean): VariableRow {
  const createdDate = kept ? storedDate(v.createdDate, at) : at;
  return {
    id: (kept && v.id) || randomUUID(),
    name: v.name,
    value: v.value ?? '',
    type: v.type ?? 'static',
    createdDate,
    updatedDate: kept ? storedDate(v.updatedDate, createdDate) : at,
  };
}

export class KyselyVariables implements VariableRepository {
  /** The whole table, a builder rather than a function building it: fixed (Engine.listing), its SQL compiled once. */
  private readonly all: AnySelect;

  constructor(private readonly engine: Engine) {
    this.all = engine.db.selectFrom('variable').selectAll();
  }

  async create(input: VariableCreate): Promise<Variable> {
    const row = toRow(input, now(), false);
    await this.engine.db.insertInto('variable').values(row).execute();
    return toVariable(row);
  }

  list(page: PageRequest): Promise<Listing<Variable>> {
    return this.engine.listing(
      this.all,
      { column: 'updatedDate', key: 'updatedDate', id: 'id', order: 'desc' },
      page,
      toVariable,
      this.engine.kind === 'sqlite' ? VARIABLE_JSON : undefined,
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

  delete(id: string): Promise<number> {
    return this.engine.deleteById('variable', 'variable', id);
  }

  set(input: VariableCreate): Promise<VariableSet> {
    return this.engine.db.transaction().execute(async (trx) => {
      // SQLite: the transaction begins IMMEDIATE (sqlite.ts), holding the write lock; PostgreSQL: a
      // lock on the name, so that a second set waits and then finds the first one's variable.
      if (this.engine.kind === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`variable:${input.name}`}))`.execute(trx);
      const named = await trx.selectFrom('variable').select('id').where('name', '=', input.name).limit(2).execute();
      if (named.length > 1) throw new Conflict(`several variables are named ${input.name}`);
      const at = now();
      if (named.length === 0) {
        const row = toRow(input, at, false);
        await trx.insertInto('variable').values(row).execute();
        return { variable: toVariable(row), created: true };
      }
      const row = await trx
        .updateTable('variable')
        .set({ ...pick(input, ['value', 'type']), updatedDate: at })
        .where('id', '=', named[0]!.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { variable: toVariable(row), created: false };
    });
  }

  ingest(variables: VariableIngest[]): Promise<number> {
    const at = now();
    return this.engine.insertAll('variable', ...rowsOf(variables.map((v) => toRow(v, at, true))));
  }
}
