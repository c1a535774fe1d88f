// The command tree. Completion walks this same tree, so a new flag completes without more work.
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { registerApi } from './commands/api.js';
import { registerAssistants } from './commands/assistants.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerDemo } from './commands/demo.js';
import { registerExport } from './commands/export.js';
import { registerFeedback } from './commands/feedback.js';
import { registerImport } from './commands/import.js';
import { registerMessages } from './commands/messages.js';
import { registerServe } from './commands/serve.js';
import { registerStats } from './commands/stats.js';
import { registerUpsertHistory } from './commands/upsert-history.js';
import { registerVariables } from './commands/variables.js';
import { addConnectionOptions, addGeneralOptions, addOutputOptions, examples } from './options.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0  success (a bulk delete that matched nothing is 0, with a note on stderr)
  1  server or unexpected error
  2  usage error (bad flag, missing value, refused confirmation, request rejected as invalid)
  3  not found
  4  unauthorized or forbidden
  5  cannot reach the server, or timed out
`;

export function buildProgram(): Command {
  const program = new Command('chatflow')
    .description(
      'Manage a chatflow service (the Flowise API): variables, feedback, assistants, chat messages, upsert history.\n' +
        'With no server configured it uses the embedded service on a local SQLite database.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .enablePositionalOptions()
    .showSuggestionAfterError()
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false });
  // Connection and output options also work before the command (`chatflow --url … variables list`).
  addGeneralOptions(addOutputOptions(addConnectionOptions(program)));

  registerVariables(program);
  registerFeedback(program);
  registerAssistants(program);
  registerMessages(program);
  registerUpsertHistory(program);
  registerStats(program);
  registerApi(program);
  registerConfig(program);
  registerDemo(program);
  registerExport(program);
  registerImport(program);
  registerServe(program);
  registerCompletion(program);

  program.addHelpText(
    'after',
    examples([
      'chatflow variables list                       # a table on a terminal, JSON when piped',
      'chatflow variables set OPENAI_MODEL gpt-4o',
      'chatflow messages list <chatflowId> --session-id s1 --start-date 2026-01-01 -o csv',
      'chatflow --url http://flowise:3000 --api-key "$KEY" assistants list   # or: chatflow login',
      'chatflow serve --port 3000',
    ]) + EXIT_CODES_HELP,
  );
  return program;
}
