// Opens the store a command line asks for, with start-up failures as one clear line.
import { NoSqlite } from './store/sqlite-driver.js';
import { openSqliteStore } from './store/sqlite.js';
import type { Store } from './store/types.js';

export interface StoreChoice {
  /** SQLite file (the default store). */
  dbPath: string;
  /** PostgreSQL URL: selects the PostgreSQL store instead. */
  databaseUrl?: string;
  poolSize?: number;
  /** SQLite: a new file is a copy of this empty database (see SqliteOptions). */
  template?: string;
  /**
   * How the caller's user names another SQLite file, in the caller's words (the CLI's flag or
   * variable): added to a refusal of this one that another file would cure.
   */
  otherFile?: string;
  /**
   * How the caller's user does without SQLite, in the caller's words (`point at a server with
   * --url`): the end of the line saying that no SQLite can be loaded on this machine.
   */
  withoutSqlite?: string;
}

/** `a, b, or c`: what can be done, as one clause. */
export const eitherOf = (clauses: readonly string[]) => (clauses.length < 2 ? clauses.join('') : `${clauses.slice(0, -1).join(', ')}${clauses.length > 2 ? ',' : ''} or ${clauses.at(-1)}`);

/** A start-up failure the operator can fix, already phrased for them (`code`: the cause's, if any). */
class StartupError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export async function openStore(choice: StoreChoice): Promise<Store> {
  if (choice.databaseUrl) {
    const { openPostgresStore } = await import('./store/postgres/open.js');
    try {
      return await openPostgresStore(choice.databaseUrl, { poolSize: choice.poolSize });
    } catch (err) {
      throw new StartupError(`cannot use the PostgreSQL database: ${describe(err)}`);
    }
  }
  try {
    return await openSqliteStore(choice.dbPath, choice.template ? { template: choice.template } : {});
  } catch (err) {
    if (err instanceof NoSqlite) {
      const remedies = [...err.remedies, ...(choice.withoutSqlite ? [choice.withoutSqlite] : [])];
      throw new StartupError(`no SQLite to open ${choice.dbPath} with: ${err.message}; ${eitherOf(remedies)}`, err.code);
    }
    throw new StartupError(`cannot open the database ${choice.dbPath}: ${describe(err, choice.otherFile)}`);
  }
}

function describe(err: unknown, otherFile?: string): string {
  const e = err as { code?: string; message?: string };
  const choose = otherFile ? ` (choose another with ${otherFile})` : '';
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
      return `the path is not writable${choose}`;
    case 'SQLITE_NOTADB':
      return `the file is not a chatflow database${choose}`;
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a part of the path is a file, not a directory';
    default:
      return (e.message ?? String(err)).replace(/\/\/[^@/]*@/g, '//***@');
  }
}
