// Options shared by the commands. Program options are positional (given before the subcommand),
// so each command that talks to a server also carries them itself: `chatflow variables list
// -o json --url …` reads naturally, and `serve --api-key` can mean the keys it accepts.
import { Option, type Command } from 'commander';
import { FORMATS } from './output.js';

export function addGeneralOptions(cmd: Command): Command {
  return cmd
    .option('--debug', 'log each request (and stack traces) to stderr; keys are redacted')
    .option('--no-color', 'no colour (also NO_COLOR or TERM=dumb)')
    .option('--no-input', 'never prompt; fail with exit 2 when a value is missing');
}

export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--url <url>', 'server URL, e.g. http://host:3000 (env CHATFLOW_URL)'))
    .addOption(new Option('--api-key <key>', 'API key (env CHATFLOW_API_KEY)'))
    .addOption(new Option('--profile <name>', 'configuration profile (env CHATFLOW_PROFILE)'))
    .addOption(new Option('--timeout <seconds>', 'request timeout (default 30)'));
}

export function addOutputOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-o, --output <format>', 'output format (default: table on a terminal, else json)').choices(FORMATS))
    .option('--json', 'same as -o json')
    .option('--fields <list>', 'columns or keys to show, comma-separated (dots reach nested keys)')
    .option('-q, --quiet', 'ids only, one a line');
}

/** A command that reads or writes data on a server. */
export function dataCommand(cmd: Command): Command {
  return addGeneralOptions(addOutputOptions(addConnectionOptions(cmd)));
}

/** Adds `-y, --yes` and `--dry-run` to a command that changes data. */
export function mutation(cmd: Command, opts: { destructive?: boolean } = {}): Command {
  if (opts.destructive) cmd.option('-y, --yes', 'do not ask for confirmation');
  return cmd.option('--dry-run', 'print the request that would be sent, and send nothing');
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
