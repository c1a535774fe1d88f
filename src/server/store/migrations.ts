// Versioned schema migrations, the same for both dialects; kysely's Migrator records them in
// `kysely_migration` and takes a lock (an advisory lock on PostgreSQL) so replicas never race.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

function migrationsFor(dialect: Dialect): Record<string, Migration> {
  const date = dialect === 'postgres' ? 'timestamptz' : 'text';
  // Keys sort and compare byte by byte on both (SQLite's BINARY): PostgreSQL's default collation
  // follows the server's locale, which would order ids and chatflow names differently.
  const str = (n: number) =>
    dialect === 'postgres' ? sql`varchar(${sql.raw(String(n))}) collate "C"` : (`varchar(${n})` as const);
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('variable')
          .addColumn('id', str(36), (c) => c.primaryKey())
          .addColumn('name', str(255), (c) => c.notNull())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('type', str(64), (c) => c.notNull())
          .addColumn('createdDate', date, (c) => c.notNull())
          .addColumn('updatedDate', date, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('variable_updated').on('variable').columns(['updatedDate', 'id']).execute();

        await db.schema
          .createTable('assistant')
          .addColumn('id', str(36), (c) => c.primaryKey())
          .addColumn('details', 'text', (c) => c.notNull())
          .addColumn('credential', str(255))
          .addColumn('iconSrc', str(2048))
          .addColumn('type', str(16), (c) => c.notNull())
          .addColumn('createdDate', date, (c) => c.notNull())
          .addColumn('updatedDate', date, (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('chat_message')
          .addColumn('id', str(255), (c) => c.primaryKey())
          .addColumn('role', str(32), (c) => c.notNull())
          .addColumn('chatflowid', str(255), (c) => c.notNull())
          .addColumn('content', 'text', (c) => c.notNull())
          .addColumn('sourceDocuments', 'text')
          .addColumn('usedTools', 'text')
          .addColumn('fileAnnotations', 'text')
          .addColumn('agentReasoning', 'text')
          .addColumn('fileUploads', 'text')
          .addColumn('action', 'text')
          .addColumn('chatType', str(64), (c) => c.notNull())
          .addColumn('chatId', str(255), (c) => c.notNull())
          .addColumn('memoryType', str(255))
          .addColumn('sessionId', str(255))
          .addColumn('leadEmail', str(255))
          .addColumn('createdDate', date, (c) => c.notNull())
          .execute();
        // Every list is one chatflow's messages in (createdDate, id) order, optionally narrowed by
        // an exact-match filter: these keep a filtered list of a million rows an index range scan.
        for (const [name, cols] of [
          ['chat_message_flow_date', ['chatflowid', 'createdDate', 'id']],
          ['chat_message_flow_session', ['chatflowid', 'sessionId', 'createdDate', 'id']],
          ['chat_message_flow_chat', ['chatflowid', 'chatId', 'createdDate', 'id']],
          ['chat_message_flow_type', ['chatflowid', 'chatType', 'createdDate', 'id']],
          ['chat_message_flow_memory', ['chatflowid', 'memoryType', 'createdDate', 'id']],
        ] as const) {
          await db.schema.createIndex(name).on('chat_message').columns([...cols]).execute();
        }

        await db.schema
          .createTable('chat_message_feedback')
          .addColumn('id', str(36), (c) => c.primaryKey())
          .addColumn('chatflowid', str(255), (c) => c.notNull())
          .addColumn('chatId', str(255), (c) => c.notNull())
          .addColumn('messageId', str(255), (c) =>
            c.notNull().unique().references('chat_message.id').onDelete('cascade'),
          )
          .addColumn('rating', str(16), (c) => c.notNull())
          .addColumn('content', 'text')
          .addColumn('createdDate', date, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('feedback_flow_date')
          .on('chat_message_feedback')
          .columns(['chatflowid', 'createdDate', 'id'])
          .execute();

        await db.schema
          .createTable('upsert_history')
          .addColumn('id', str(255), (c) => c.primaryKey())
          .addColumn('chatflowid', str(255), (c) => c.notNull())
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('flowData', 'text', (c) => c.notNull())
          .addColumn('date', date, (c) => c.notNull())
          .addColumn('deletedDate', date)
          .execute();
        await db.schema.createIndex('upsert_flow_date').on('upsert_history').columns(['chatflowid', 'date', 'id']).execute();
        await db.schema.createIndex('upsert_date').on('upsert_history').columns(['date', 'id']).execute();
      },
    },
    // The lists 0001 left without an index: feedback by chat (one feedback a message, so a
    // chatflow may hold a million), and assistants in creation order, with or without a type.
    '0002_list_indexes': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex('feedback_flow_chat')
          .on('chat_message_feedback')
          .columns(['chatflowid', 'chatId', 'createdDate', 'id'])
          .execute();
        await db.schema.createIndex('assistant_created').on('assistant').columns(['createdDate', 'id']).execute();
        await db.schema.createIndex('assistant_type').on('assistant').columns(['type', 'createdDate', 'id']).execute();
      },
    },
    // PostgreSQL runs ON DELETE CASCADE as a trigger a deleted message, a lookup in the feedback
    // each: three quarters of the time of deleting a million. The store keeps the rule itself:
    // feedback is written under a lock on its message (KyselyStore.messagesToRate), and a delete
    // sweeps the feedback it leaves without a message. (SQLite keeps its key, turned off for a
    // delete: dropping one means rebuilding the table.)
    '0003_feedback_key_kept_by_the_store': {
      async up(db: Kysely<unknown>) {
        if (dialect !== 'postgres') return;
        await sql`alter table chat_message_feedback drop constraint if exists ${sql.id('chat_message_feedback_messageId_fkey')}`.execute(db);
      },
    },
    // Every message is written to (and deleted from) each of its B-trees: five indexes, the table
    // and its id. The chatType and memoryType filters take a handful of values, most messages
    // sharing one: their lists walk the (chatflow, date) index and skip the others, as the
    // interface's other filters without an index do. Inserting and deleting a million messages
    // gets some 30-40% faster (bench/million.js).
    '0004_no_index_for_few_valued_filters': {
      async up(db: Kysely<unknown>) {
        await db.schema.dropIndex('chat_message_flow_type').ifExists().execute();
        await db.schema.dropIndex('chat_message_flow_memory').ifExists().execute();
      },
    },
    // PostgreSQL: the sessionId and chatId filters find a session's or a chat's few messages by
    // (chatflow, value) alone, and sort those few (Engine lets it sort where the filter's index
    // has no order). Without the date and the id, each entry is a fifth of the size and equal
    // keys share one (B-tree deduplication): an import writes some 35% less of the database's
    // CPU into indexes (bench/million.js). SQLite keeps the ordered ones (no deduplication, and
    // its lists walk them in order).
    '0005_postgres_filter_indexes_without_order': {
      async up(db: Kysely<unknown>) {
        if (dialect !== 'postgres') return;
        for (const [old, name, column] of [
          ['chat_message_flow_session', 'chat_message_session', 'sessionId'],
          ['chat_message_flow_chat', 'chat_message_chat', 'chatId'],
        ] as const) {
          await db.schema.dropIndex(old).ifExists().execute();
          await db.schema.createIndex(name).on('chat_message').columns(['chatflowid', column]).execute();
        }
      },
    },
    // PostgreSQL: 0005 undone. Its indexes found a session's messages only while the planner's
    // statistics were current: right after an import (rows dated after the last ANALYZE look like
    // none) it walked the date index instead, a filtered list taking 37 ms at a million messages
    // instead of 2-5. The ordered ones serve both the filter and the order, whatever the
    // statistics say.
    '0006_postgres_filter_indexes_ordered_again': {
      async up(db: Kysely<unknown>) {
        if (dialect !== 'postgres') return;
        for (const [name, old, column] of [
          ['chat_message_flow_session', 'chat_message_session', 'sessionId'],
          ['chat_message_flow_chat', 'chat_message_chat', 'chatId'],
        ] as const) {
          await db.schema.createIndex(name).ifNotExists().on('chat_message').columns(['chatflowid', column, 'createdDate', 'id']).execute();
          await db.schema.dropIndex(old).ifExists().execute();
        }
      },
    },
    // ---- chatflow definitions (issue 33): the flows themselves, as Flowise's chat_flow table
    // holds them (flowData and the settings as JSON text). Listed by name; a promotion matches
    // chatflows by name, so the name is indexed too.
    '0007_chatflow_definitions': {
      async up(db: Kysely<unknown>) {
        let table = db.schema
          .createTable('chat_flow')
          .addColumn('id', str(255), (c) => c.primaryKey())
          .addColumn('name', str(255), (c) => c.notNull())
          .addColumn('flowData', 'text', (c) => c.notNull())
          .addColumn('type', str(20), (c) => c.notNull())
          .addColumn('deployed', str(5))
          .addColumn('isPublic', str(5))
          .addColumn('apikeyid', str(255))
          .addColumn('category', 'text');
        for (const setting of ['chatbotConfig', 'apiConfig', 'analytic', 'speechToText', 'textToSpeech', 'followUpPrompts', 'mcpServerConfig']) {
          table = table.addColumn(setting, 'text');
        }
        await table
          .addColumn('createdDate', date, (c) => c.notNull())
          .addColumn('updatedDate', date, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('chat_flow_name').on('chat_flow').columns(['name', 'id']).execute();
      },
    },
    // Flowise 3's message columns (its chat_message has them): an export of a Flowise server
    // imported here lost them. Added without a default: neither SQLite nor PostgreSQL rewrites
    // the table for that.
    '0008_flowise_message_columns': {
      async up(db: Kysely<unknown>) {
        for (const [column, type] of [['artifacts', 'text'], ['reasonContent', 'text'], ['followUpPrompts', 'text'], ['executionId', str(255)]] as const) {
          await db.schema.alterTable('chat_message').addColumn(column, type).execute();
        }
      },
    },
  };
}

/** This version's migrations, in order: a database whose own are a start of these is one it can read. */
export const migrationNames = (dialect: Dialect): string[] => Object.keys(migrationsFor(dialect));

/**
 * Whether the database has run exactly this version's migrations: the common case of opening one,
 * which then needs neither kysely's Migrator (a good part of a one-off command's start) nor a lock.
 * A new database, an older or a newer one answers false: `migrate` then does (or refuses) the work.
 */
export async function isMigrated(db: Kysely<unknown>, dialect: Dialect): Promise<boolean> {
  const names = migrationNames(dialect);
  try {
    const { rows } = await sql<{ n: number; last: string | null }>`select count(*) as n, max(name) as last from kysely_migration`.execute(db);
    return Number(rows[0]?.n) === names.length && rows[0]?.last === names.at(-1);
  } catch {
    return false; // no such table yet
  }
}

/** Brings the database to the newest version; safe to call from several processes at once. */
export async function migrate(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const migrations = migrationsFor(dialect);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // PostgreSQL: name the schema of kysely's own tables. Unnamed, kysely looks for them in every
  // schema of the database, finds another schema's and never creates its own in this one.
  let migrationTableSchema: string | undefined;
  if (dialect === 'postgres') {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    migrationTableSchema = rows[0]?.schema ?? undefined;
    if (!migrationTableSchema) throw new Error('the search_path names no existing schema to create the tables in');
  }
  // A database a newer chatflow has migrated (kysely would call it corrupted): said as such.
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db).then(
    (r) => r.rows.map((row) => row.name),
    () => [], // no such table yet
  );
  const newer = applied.filter((name) => !Object.hasOwn(migrations, name));
  if (newer.length) throw new Error(`it was made by a newer chatflow (its schema has ${newer.join(', ')}): open it with that version or a newer one`);
  const { error } = await new Migrator({ db, provider, migrationTableSchema }).migrateToLatest();
  if (error) throw error;
}
