// Where the SQLite database lives when no path is given: the user's data directory.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  // (Made absolute: messages and `chatflow db` name it whole.)
  if (env.CHATFLOW_DB) return resolve(env.CHATFLOW_DB);
  const base =
    process.platform === 'win32'
      ? (env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'))
      : // The XDG rule: an empty or relative XDG_DATA_HOME is ignored (else the database would be
        // made in whatever directory the command ran from).
        env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)
        ? env.XDG_DATA_HOME
        : join(homedir(), '.local', 'share');
  return join(base, 'chatflow', 'chatflow.db');
}
