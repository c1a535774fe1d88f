// Entry point: parse, run, and turn every failure into one line and a documented exit code.
import { CommanderError, type Command } from 'commander';
import { setupColor } from './color.js';
import { EXIT, exitCodeOf } from './exit.js';
import { printError, type Format } from './output.js';
import { buildProgram } from './program.js';
import { setPromptDefaults } from './prompts.js';

function preScan(argv: string[]) {
  // Colour, prompting and --debug must be known before any command runs or fails to parse.
  const has = (flag: string) => argv.includes(flag);
  const output = argv.find((a, i) => argv[i - 1] === '-o' || argv[i - 1] === '--output') ?? argv.find((a) => a.startsWith('--output='))?.slice(9);
  return { noColor: has('--no-color'), noInput: has('--no-input'), debug: has('--debug'), format: (has('--json') ? 'json' : output) as Format | undefined };
}

export async function main(argv = process.argv): Promise<number> {
  // A reader that stops early (`| head`) is not an error: stop quietly, as cat and grep do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
  const flags = preScan(argv.slice(2));
  setupColor({ noColor: flags.noColor });
  setPromptDefaults({ input: !flags.noInput });
  const program = buildProgram();
  // Commander copies these settings to a subcommand only when it is created, and the tree is
  // built already: set them on every command, or a subcommand's usage error exits 1 by itself.
  const override = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.configureOutput({ outputError: (text, write) => write(text) });
    cmd.commands.forEach(override);
  };
  override(program);
  try {
    await program.parseAsync(argv);
    // A command may set its own code (e.g. `api` mirrors the HTTP status).
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version "fail" with exit 0; every other commander error is a usage error.
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      return EXIT.usage;
    }
    const format = flags.format ?? (err as { outputFormat?: Format } | null)?.outputFormat;
    return printError(err, { format, debug: flags.debug }) || exitCodeOf(err);
  }
}
