// Entry point: parse, run, and answer the exit code. A command's own failures are printed by its
// Output (core/tree.ts); what fails to parse is commander's usage error, exit 2.
import { CommanderError, type Command } from 'commander';
import { EXIT } from './core/errors.js';
import { buildProgram } from './program.js';

export async function main(argv = process.argv): Promise<number> {
  // A reader that stops early (`| head`) is not an error: stop quietly, as cat and grep do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
  let code: number = EXIT.ok;
  const program = buildProgram({
    done: (c) => {
      code = c;
    },
    lazy: true,
  });
  // Commander copies these settings to a subcommand when it is created: set them on the commands
  // built already (a group's subcommands, built later, inherit them), or a subcommand's usage
  // error exits 1 by itself.
  const override = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.configureOutput({ outputError: (text, write) => write(text) });
    cmd.commands.forEach(override);
  };
  override(program);
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version "fail" with exit 0; every other commander error is a usage error.
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      return EXIT.usage;
    }
    // Handlers' failures are printed by their run; anything reaching here is ours.
    const [{ BugError }, { printError }] = await Promise.all([import('./core/errors.js'), import('./core/output.js')]);
    return printError(new BugError(err instanceof Error ? err.message : String(err), { cause: err }), { debug: program.opts().debug === true });
  }
}
