// The command tree, built from the definitions (commands.ts). Completion walks this same tree, so a
// new flag completes without more work.
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { COMMANDS } from './commands.js';
import { CONNECTION, GENERAL, OUTPUT } from './core/flags.js';
import { examples, formatHelp, GLOBAL_HEADING, helpOption } from './core/help.js';
import { addCommands, option } from './core/tree.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0    success (a bulk delete that matched nothing is 0, with a note on stderr)
  1    server or unexpected error
  2    usage error (bad flag or value, refused confirmation, invalid request)
  3    not found
  4    unauthorized or forbidden
  5    cannot reach the server, or timed out
  130  interrupted (Ctrl-C)
`;

export const DESCRIPTION =
  'Manage a chatflow service (the Flowise API): variables, feedback, assistants, chat messages, upsert history.\n' +
  'With no server configured it uses the embedded service on a local SQLite database.';

export const EXAMPLES = [
  'chatflow variables list      # a table on a terminal, JSON when piped',
  'chatflow variables set OPENAI_MODEL gpt-4o',
  'chatflow messages list <chatflowId> --session-id s1 --start-date 2026-01-01 -o csv',
  'chatflow login --url http://flowise:3000       # then every command goes there',
  'chatflow serve --port 3000',
];

/** `done` receives the exit code of the command that ran; `lazy`: see addCommands. */
export function buildProgram(opts: { done?: (code: number) => void; lazy?: boolean } = {}): Command {
  const program = new Command('chatflow')
    .description(DESCRIPTION)
    .version(VERSION, '-V, --version', 'print the version')
    .enablePositionalOptions()
    .showSuggestionAfterError()
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false, formatHelp })
    .addHelpOption(helpOption());
  // Connection and output options also work before the command (`chatflow --url … variables list`).
  for (const f of [...CONNECTION, ...OUTPUT, ...GENERAL]) program.addOption(option(f).helpGroup(GLOBAL_HEADING));
  addCommands(program, COMMANDS, opts);
  program.addHelpText('after', (context) => examples(EXAMPLES)(context) + EXIT_CODES_HELP);
  return program;
}
