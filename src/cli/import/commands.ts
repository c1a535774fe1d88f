// `chatflow import` (definition).
import { command } from '../core/command.js';
import { DATA, PROGRESS } from '../core/flags.js';
import { INPUT_FILE } from '../base/values.js';

export const importCommand = command({
  name: 'import',
  summary: 'import the JSON lines of `chatflow export` into the service (ids and dates kept; records already there are skipped)',
  args: [{ name: '<file>', help: 'a file written by chatflow export, or - for stdin', values: INPUT_FILE }],
  flags: [
    ...DATA,
    { flags: '--dry-run', help: 'read and check every line, and count what would be imported; send nothing' },
    { flags: '--continue-on-error', help: 'skip bad lines (and records the server refuses), report each, import the rest; exit 1 with a summary if any was skipped' },
    { flags: '--resources <list>', help: 'only these (comma-separated): chatflows, variables, assistants, messages, feedback, upsert-history (default: all)' },
    ...PROGRESS,
  ],
  examples: [
    'chatflow import backup.jsonl',
    'chatflow import backup.jsonl --dry-run                  # counts per resource, nothing sent',
    'gunzip -c backup.jsonl.gz | chatflow import - --continue-on-error',
    'chatflow export --url http://flowise:3000 --api-key "$KEY" | chatflow import -',
  ],
  notes:
    "\nEach resource's lines (a chatflow's messages, and so on) go in the order of the file as one\n" +
    'streamed request, which the service commits as they arrive, 10,000 lines a transaction. A bad\n' +
    'line stops the import with its line number: nothing from it on is imported (from the start of\n' +
    'its transaction, when the server refused it), what came before is, and running the import again\n' +
    'skips what is already there. A line that cannot be parsed or sent (not JSON, nested too deep, bigger than\n' +
    'a request, fields of the wrong type) is a bad line, named by its number. Ctrl-C says what got in.\n' +
    'Variables and assistants are one per name (as with sync and variables set): one whose name the target\n' +
    'has is skipped, with a warning when the target holds that name under another id.\n',
});
