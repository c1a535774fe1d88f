// `chatflow db` (definitions): the embedded default's database file itself.
import { command } from '../core/command.js';
import { GENERAL, mutation, OUTPUT } from '../core/flags.js';
import { INPUT_FILE, OUTPUT_FILE } from '../base/values.js';

export const db = command({
  name: 'db',
  summary: 'check, back up or restore the local database file',
  notes: [
    'Each works through SQLite, safe while other commands, `chatflow serve` or other programs use the',
    'database: a backup is a consistent copy of one moment; a restore replaces all the data in one',
    'transaction (others see the old data or the new, never a mix). Between commands the database is',
    'a plain file, which cp copies as well; while something writes to it, use db backup.',
  ].join('\n'),
  commands: [
    {
      name: 'check',
      summary: 'check the database (SQLite integrity and foreign keys) and count what it holds; exit 1 if it is damaged',
      flags: [...OUTPUT, ...GENERAL],
      examples: ['chatflow db check', 'chatflow db check -o json', 'CHATFLOW_DB=./other.db chatflow db check'],
    },
    {
      name: 'backup',
      summary: 'copy the database into a new file (mode 0600), consistent while others write',
      args: [{ name: '<file>', help: 'the new file (it must not exist)', values: OUTPUT_FILE }],
      flags: [...OUTPUT, ...GENERAL],
      examples: ['chatflow db backup ~/chatflow-$(date +%F).db', 'CHATFLOW_DB=/srv/chatflow.db chatflow db backup /backups/chatflow.db   # beside a running serve'],
    },
    {
      name: 'restore',
      summary: 'replace the data of the database by those of a backup (checked first; the current data kept as <db>.bak-<time>)',
      args: [{ name: '<file>', help: 'a chatflow database: a db backup, or a copy of the file', values: INPUT_FILE }],
      flags: [...mutation({ destructive: true }), ...OUTPUT, ...GENERAL],
      examples: ['chatflow db restore ~/chatflow-2026-11-01.db', 'chatflow db restore backup.db --dry-run   # check it, say what would change', 'chatflow db restore backup.db --yes'],
    },
  ],
});
