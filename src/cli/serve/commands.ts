// `chatflow serve` (definition).
import { command } from '../core/command.js';
import { GENERAL } from '../core/flags.js';
import { FILES } from '../base/values.js';

export const serve = command({
  name: 'serve',
  summary: 'run the chatflow service over HTTP (SQLite by default, PostgreSQL with --database-url)',
  flags: [
    { flags: '--host <host>', help: 'address to listen on', default: '127.0.0.1' },
    { flags: '-p, --port <port>', help: 'port to listen on (0 picks a free one)', default: '3000' },
    { flags: '--db <path>', help: 'SQLite database file (default: ~/.local/share/chatflow/chatflow.db)', env: 'CHATFLOW_DB', values: FILES },
    { flags: '--database-url <url>', help: 'use this PostgreSQL database instead of SQLite', env: 'CHATFLOW_DATABASE_URL' },
    { flags: '--pool-size <n>', help: 'PostgreSQL connections per process', default: '10' },
    {
      flags: '--api-key-file <path>',
      help: 'require the API keys in this file, one a line; a file that does not exist is made with a generated key, shown once',
      values: FILES,
    },
    { flags: '--api-key <key>', help: 'require this API key (repeatable; env CHATFLOW_API_KEYS, comma-separated); visible in ps: prefer --api-key-file', repeatable: true },
    { flags: '--allow-unauthenticated', help: 'listen on a non-loopback address without an API key' },
    { flags: '--body-limit <bytes>', help: 'largest request body accepted', default: String(1024 * 1024) },
    { flags: '--log', help: 'print one line per request to stderr (method, path, status, ms)' },
    {
      flags: '--retain <period>',
      help: 'delete messages (and their feedback) older than this, hourly: 90d; per chatflow ID=90d or ID=forever (repeatable; env CHATFLOW_RETAIN, comma-separated)',
      repeatable: true,
    },
    ...GENERAL,
  ],
  examples: [
    'chatflow serve                                   # http://127.0.0.1:3000, local SQLite file',
    'chatflow serve --port 8080 --db ./chatflow.db --log',
    'chatflow serve --host 0.0.0.0 --api-key-file ~/.config/chatflow/server-keys   # made with a new key the first time',
    'CHATFLOW_API_KEYS="$KEY1,$KEY2" chatflow serve --host 0.0.0.0                 # keys in the environment, not in ps',
    'chatflow serve --database-url postgres://user@db:5432/chatflow   # several replicas, one database',
    'chatflow serve --retain 90d --retain support-bot=30d --retain audit=forever',
  ],
  notes:
    '\nOn SQLite, back up and restore its database while it runs with CHATFLOW_DB=FILE chatflow db backup|restore\n' +
    '(through SQLite: it sees the restored data at its next request); copy files over it only when it is stopped.\n',
});
