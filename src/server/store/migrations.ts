// Versioned schema migrations, the same for both dialects; kysely's Migrator records them in
// `kysely_migration` and takes a lock (an advisory lock on PostgreSQL) so replicas never race.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

function migrationsFor(dialect: Dialect): Record<string, Migration> {
  const date = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('variable')
          .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
          .addColumn('name', 'varchar(255)', (c) => c.notNull())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('type', 'varchar(64)', (c) => c.notNull())
          .addColumn('createdDate', date, (c) => c.notNull())
          .addColumn('updatedDate', date, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('variable_updated').on('variable').columns(['updatedDate', 'id']).execute();

        await db.schema
          .createTable('assistant')
          .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
          .addColumn('details', 'text', (c) => c.notNull())
          .addColumn('credential', 'varchar(255)')
          .addColumn('iconSrc', 'varchar(2048)')
          .addColumn('type', 'varchar(16)', (c) => c.notNull())
          .addColumn('createdDate', date, (c) => c.notNull())
          .addColumn('updatedDate', date, (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('chat_message')
          .addColumn('id', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('role', 'varchar(32)', (c) => c.notNull())
          .addColumn('chatflowid', 'varchar(255)', (c) => c.notNull())
          .addColumn('content', 'text', (c) => c.notNull())
          .addColumn('sourceDocuments', 'text')
          .addColumn('usedTools', 'text')
          .addColumn('fileAnnotations', 'text')
          .addColumn('agentReasoning', 'text')
          .addColumn('fileUploads', 'text')
          .addColumn('action', 'text')
          .addColumn('chatType', 'varchar(64)', (c) => c.notNull())
          .addColumn('chatId', 'varchar(255)', (c) => c.notNull())
          .addColumn('memoryType', 'varchar(255)')
          .addColumn('sessionId', 'varchar(255)')
          .addColumn('leadEmail', 'varchar(255)')
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
          .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
          .addColumn('chatflowid', 'varchar(255)', (c) => c.notNull())
          .addColumn('chatId', 'varchar(255)', (c) => c.notNull())
          .addColumn('messageId', 'varchar(255)', (c) =>
            c.notNull().unique().references('chat_message.id').onDelete('cascade'),
          )
          .addColumn('rating', 'varchar(16)', (c) => c.notNull())
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
          .addColumn('id', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('chatflowid', 'varchar(255)', (c) => c.notNull())
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('flowData', 'text', (c) => c.notNull())
          .addColumn('date', date, (c) => c.notNull())
          .addColumn('deletedDate', date)
          .execute();
        await db.schema.createIndex('upsert_flow_date').on('upsert_history').columns(['chatflowid', 'date', 'id']).execute();
        await db.schema.createIndex('upsert_date').on('upsert_history').columns(['date', 'id']).execute();
      },
    },
  };
}

/** Brings the database to the newest version; safe to call from several processes at once. */
export async function migrate(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const migrations = migrationsFor(dialect);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}
