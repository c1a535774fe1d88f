// `chatflow db check|backup|restore` handlers: the embedded default's database file, through the
// store's module for it (server/store/sqlite-admin.ts). A local command: it names no server, and
// acts on the local database whatever --url or a profile says.
import type { db } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { shownPath as shown } from '../base/dirs.js';
import { EXIT, UserError } from '../base/errors.js';
import type { DatabaseReport, Restored } from '../../server/store/sqlite-admin.js';
import { confirmOrRefuse } from '../core/handler-common.js';

async function admin() {
  const [{ defaultDbPath }, module] = await Promise.all([import('../../server/default-db.js'), import('../../server/store/sqlite-admin.js')]);
  return { dbPath: defaultDbPath(), ...module };
}


/** The store's refusals (not there, not a chatflow database, damaged) as the user's errors. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if ((err as Error).name === 'DatabaseRefused') throw new UserError((err as Error).message, EXIT.error);
    throw err;
  }
}

/** RESOURCE names for the tables (counts as the commands name what they hold). */
const RESOURCES: Record<string, string> = {
  chat_flow: 'chatflows',
  variable: 'variables',
  assistant: 'assistants',
  chat_message: 'messages',
  chat_message_feedback: 'feedback',
  upsert_history: 'upsertHistory',
};

/** A report as one flat record: a table shows it as a row, json keeps its numbers. */
function record(report: DatabaseReport) {
  const counts = Object.fromEntries(Object.entries(report.rows).map(([table, n]) => [RESOURCES[table] ?? table, n]));
  return {
    database: report.path,
    integrity: report.integrity.join('; '),
    schema: `${report.schema.applied} of ${report.schema.known}`,
    ...counts,
    bytes: report.bytes,
    walBytes: report.walBytes,
  };
}

export async function check(ctx: Context): Promise<number> {
  const { dbPath, checkDatabase } = await admin();
  const report = await refusing(() => checkDatabase(dbPath));
  await ctx.print(record(report), { single: true, idField: 'database' });
  if (report.integrity.join() !== 'ok') throw new UserError(`the database ${dbPath} is damaged (${report.integrity[0]}): restore a backup (chatflow db restore FILE)`, EXIT.error);
  return EXIT.ok;
}

export async function backup(ctx: Context, file: string): Promise<void> {
  const { dbPath, backupDatabase } = await admin();
  const report = await refusing(() => backupDatabase(dbPath, file));
  await ctx.print(record(report), { single: true, idField: 'database' });
  ctx.out.note(`backed up ${shown(dbPath)} into ${file}`);
}

export async function restore(ctx: Context, file: string, flags: Flags<typeof db, 'restore'>): Promise<void> {
  const { dbPath, restoreDatabase } = await admin();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  if (flags.yes && !flags.dryRun) return restored(ctx, dbPath, file, await refusing(() => restoreDatabase(dbPath, file, { stamp })));
  // Checked before the question: a file that would be refused is refused without asking.
  const checked = await refusing(() => restoreDatabase(dbPath, file, { dryRun: true, stamp }));
  if (flags.dryRun) {
    await ctx.print(record(checked.from), { single: true, idField: 'database' });
    const before = checked.before ? describe(checked.before) : 'no data yet';
    ctx.out.note(`dry run: ${file} is sound (${describe(checked.from)}); it would replace ${before} in ${shown(dbPath)}; nothing was changed`);
    return;
  }
  await confirmOrRefuse(`Replace all the data of ${shown(dbPath)} (${checked.before ? describe(checked.before) : 'no data yet'}) by those of ${file} (${describe(checked.from)})?`, flags.yes);
  await restored(ctx, dbPath, file, await refusing(() => restoreDatabase(dbPath, file, { stamp })));
}

async function restored(ctx: Context, dbPath: string, file: string, done: Restored): Promise<void> {
  ctx.changedData();
  await ctx.print(record({ ...done.from, path: dbPath }), { single: true, idField: 'database' });
  ctx.out.note(`restored ${file} into ${shown(dbPath)}${done.kept ? `; the data before are kept in ${done.kept}` : ''}`);
}

/** `3 chatflows, 240 messages, …`: what a database holds, in a clause. */
function describe(report: DatabaseReport): string {
  const parts = Object.entries(report.rows)
    .filter(([table]) => RESOURCES[table])
    .map(([table, n]) => `${n} ${RESOURCES[table]}`);
  return parts.join(', ');
}
