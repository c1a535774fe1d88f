// `chatflow chatflows` (definitions): list, get; export, import, diff, sync.
import { command } from '../core/command.js';
import { flagList } from '../core/flag-def.js';
import { DATA, GENERAL, OUTPUT } from '../core/flags.js';
import { CHATFLOW, FILES } from '../base/values.js';
import { EXIT_CODE, sides } from '../promote/commands.js';

// Whole chatflows as files and between servers (issue 33): export, import, diff, sync.
const FILE_NOTES =
  '\nA file holds one chatflow: name, type, settings, flowData as an object, and its id on the server it came\n' +
  'from; keys sorted, two-space indents, so an unchanged chatflow exports byte for byte the same and a change\n' +
  'is a readable git diff. Timestamps, the workspace and the API-key binding are left out. A credential is\n' +
  'written as {"name": …, "kind": …} where the flow holds its id (ids differ between servers), and turned\n' +
  "back into the target's id of that name and kind.\n";

/** --from may also be a directory of chatflows export, written as a path. */
const [FROM, ...OTHER_SIDES] = sides('chatflows');
const FLOW_SIDES = flagList([
  { ...FROM, flags: '--from <profile|url|dir/>', help: 'where the chatflows come from: a profile name, a server URL, or a directory chatflows export wrote (a path: flows/, ./flows)' },
  ...OTHER_SIDES,
]);

const yes = { flags: '-y, --yes', help: 'do not ask for confirmation' } as const;
const dryRun = { flags: '--dry-run', help: 'show the plan and change nothing' } as const;
const names = { name: '[chatflow...]', help: 'only chatflows of these names (default: all)' } as const;

const TRANSFER = [
  command({
    name: 'export',
    summary: 'write each chatflow to DIR/<name>.json, ready for git',
    args: [{ name: '[chatflow...]', help: 'chatflow ids or names (default: every chatflow)', values: CHATFLOW }],
    flags: [
      { flags: '--dir <dir>', help: 'the directory to write (made if missing)', values: FILES, required: true },
      { flags: '--prune', help: "delete DIR's files of chatflows the server no longer has (renamed or deleted there)" },
      ...DATA,
    ],
    examples: [
      'chatflow chatflows export --dir flows/ && git -C flows add -A && git -C flows commit -m "flows"',
      'chatflow chatflows export "Support bot" --dir flows/ --url http://flowise:3000',
    ],
    notes:
      FILE_NOTES +
      'A file is written only when its text changes. A chatflow file in DIR that names no chatflow of the\n' +
      'server (renamed or deleted there) is left and named on stderr; --prune deletes it.\n',
  }),
  command({
    name: 'import',
    summary: 'create or update chatflows from the files of chatflows export (by name)',
    args: [{ name: '<dir|file...>', help: "directories (their *.json) or files written by chatflows export (or by Flowise's own Export)", values: FILES }],
    flags: [
      { flags: '--keep-ids', help: "match chatflows by the files' ids first (renaming them), create them under those ids (our service; Flowise makes its own)" },
      yes,
      dryRun,
      ...DATA,
    ],
    examples: [
      'chatflow chatflows import flows/ --dry-run',
      'chatflow chatflows import flows/Support\\ bot.json --url http://flowise:3000 --yes',
      'chatflow chatflows import flows/ --keep-ids             # into the embedded service, ids as in the files',
    ],
    notes:
      FILE_NOTES +
      "A chatflow whose name the target has is updated (asked first; --yes does not ask), others are created.\n" +
      "Credentials are matched by name and kind: when the target lacks one, nothing is imported and the\n" +
      'missing ones are listed (exit 3). Our service keeps no credentials: there the references stay.\n',
  }),
  command({
    name: 'diff',
    summary: 'compare the chatflows of two servers (by name; ids, timestamps and credential ids aside)',
    args: [names],
    flags: [...FLOW_SIDES, { flags: '--prune', help: 'show the chatflows only the target has as deletions (as sync --prune would)' }, EXIT_CODE, ...OUTPUT, ...GENERAL],
    examples: [
      'chatflow chatflows diff --from staging --to prod',
      'chatflow chatflows diff "Support bot" --from staging --to prod --exit-code -q || echo differs',
      'chatflow chatflows diff --from flows/ --to prod          # the files in git against prod',
    ],
    notes: '\nEach changed chatflow lists the paths that differ (flowData.nodes[llm_0].data.inputs.modelName).\n' + FILE_NOTES,
  }),
  command({
    name: 'sync',
    summary: 'create and update chatflows in one server so they match another (by name)',
    args: [names],
    flags: [
      ...FLOW_SIDES,
      { flags: '--prune', help: 'also delete the chatflows only the target has (on Flowise, with their messages)' },
      yes,
      dryRun,
      ...OUTPUT,
      ...GENERAL,
    ],
    examples: [
      'chatflow chatflows sync --from staging --to prod',
      'chatflow chatflows sync "Support bot" --from staging --to prod --yes',
      'chatflow chatflows sync --from flows/ --to prod --prune  # prod as the files in git say',
    ],
    notes:
      '\nShows the plan, asks, applies. Credentials are matched by name and kind; when the target lacks one,\n' +
      'nothing is changed and the missing ones are listed (exit 3). A chatflow created on our service keeps\n' +
      "the source's id. Without a terminal, sync needs --yes.\n",
  }),
] as const;

export const chatflows = command({
  name: 'chatflows',
  aliases: ['chatflow', 'flows'],
  summary: 'the chatflows a server knows (name, id, message counts on our service); export, import, diff, sync',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list chatflows',
      flags: DATA,
      examples: ['chatflow chatflows list', 'chatflow chatflows list -q          # ids only'],
      notes:
        '\nFlowise keeps chatflows by name; our service lists the chatflows it stores (chatflows import), then\n' +
        'the ids only its messages, feedback and upsert history name, with their message counts. Wherever a\n' +
        'command takes a chatflow, a name only one chatflow has works as well as its id.\n',
    },
    {
      name: 'get',
      summary: 'show one chatflow (by id or name)',
      args: [{ name: '<chatflow>', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW }],
      flags: DATA,
      examples: ['chatflow chatflows get "Support bot" -o json'],
    },
    ...TRANSFER,
  ],
});
