// The store over kysely: one repository per resource on a shared engine (engine.ts), and the
// few questions that span the tables.
import { sql, type Kysely } from 'kysely';
import type { Chatflow, ChatflowDefinition, ChatflowListItem } from '../../schema/resources.js';
import { KyselyAssistants } from './assistants.js';
import { KyselyChatflows } from './chatflows.js';
import { Engine, type ApartTransaction, type BulkInsert, type PgDirect, type ReadRows } from './engine.js';
import { KyselyFeedback } from './feedback.js';
import { KyselyMessages } from './messages.js';
import type { Dialect } from './migrations.js';
import type { Database } from './tables.js';
import type { Store } from './types.js';
import { KyselyUpsertHistory } from './upsert-history.js';
import { KyselyVariables } from './variables.js';

export class KyselyStore implements Store {
  readonly variables: KyselyVariables;
  readonly feedback: KyselyFeedback;
  readonly assistants: KyselyAssistants;
  readonly messages: KyselyMessages;
  readonly upsertHistory: KyselyUpsertHistory;
  readonly chatflows: KyselyChatflows;

  constructor(
    private readonly db: Kysely<Database>,
    readonly kind: Dialect,
    /** Where listings read (see Engine); the same database by default. */
    private readonly reader: Kysely<Database> = db,
    /** SQLite: rows inserted straight through the driver (see Engine). */
    bulk?: BulkInsert,
    /** PostgreSQL: how streamed lists are read (see Engine). */
    pgDirect?: PgDirect,
    /** SQLite: a transaction run on a thread of its own (see Engine). */
    apart?: ApartTransaction,
    /** SQLite: the reader's queries straight through its driver (see Engine). */
    readRows?: ReadRows,
  ) {
    const engine = new Engine(db, kind, reader, bulk, pgDirect, apart, readRows);
    this.variables = new KyselyVariables(engine);
    this.feedback = new KyselyFeedback(engine);
    this.assistants = new KyselyAssistants(engine);
    this.messages = new KyselyMessages(engine);
    this.upsertHistory = new KyselyUpsertHistory(engine);
    this.chatflows = new KyselyChatflows(engine);
  }

  async listAllChatflows(type?: ChatflowDefinition['type']): Promise<ChatflowListItem[]> {
    const defined = await this.chatflows.list(type);
    if (type !== undefined) return defined;
    const ids = new Set(defined.map((c) => c.id));
    return [...defined, ...(await this.listChatflows()).filter((c) => !ids.has(c.id))];
  }

  async listChatflows(): Promise<Chatflow[]> {
    // A loose index scan of each table: one seek per chatflow for the next id after the last,
    // where SELECT DISTINCT reads every row (a second for a million messages).
    const flow = sql.ref('chatflowid');
    const ids = (name: string, table: keyof Database, live = sql``) => sql`${sql.id(name)}(id) as (
      select min(${flow}) from ${sql.table(table)} where ${flow} is not null${live}
      union all
      select (select min(${flow}) from ${sql.table(table)} where ${flow} > ${sql.id(name)}.id${live})
        from ${sql.id(name)} where ${sql.id(name)}.id is not null)`;
    const { rows } = await sql<{ id: string }>`with recursive
      ${ids('m', 'chat_message')}, ${ids('f', 'chat_message_feedback')},
      ${ids('u', 'upsert_history', sql` and ${sql.ref('deletedDate')} is null`)}
      select id from m where id is not null
      union select id from f where id is not null
      union select id from u where id is not null
      order by id`.execute(this.db);
    return rows.map((r) => ({ id: r.id, name: r.id }));
  }

  async ping(): Promise<void> {
    await this.db.selectFrom('variable').select('id').limit(1).execute();
  }

  async close(): Promise<void> {
    if (this.reader !== this.db) await this.reader.destroy();
    await this.db.destroy();
  }
}
