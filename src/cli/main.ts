// Entry point: parse, run, and answer the exit code. A command's own failures are printed by its
// Output (core/tree.ts); what fails to parse is commander's usage error, printed here in the CLI's
// words (core/usage.ts), exit 2.
import { CommanderError, type Command, type OutputConfiguration } from 'commander';
import { EXIT } from './base/errors.js';
import { onDataChanged } from './core/context.js';
import { stdoutMayBeTerminal, writeOut } from './base/stdout.js';
import { buildProgram } from './program.js';

// The ids TAB offers may be gone, or new, after a command changed data: the next completion asks
// the server again.
onDataChanged(() => import('./completion/cache.js').then((m) => m.forgetLiveValues()));

export async function main(argv = process.argv): Promise<number> {
  // `chatflow help variables set` is `chatflow variables set --help` (commander's help command
  // takes one word: it showed the group's help).
  if (argv[2] === 'help' && argv.length > 4) argv = [...argv.slice(0, 2), ...argv.slice(3), '--help'];
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
  // Help goes out through writeOut; process.stdout is asked about width and colour only when
  // stdout may be a terminal (or colour is forced), not made for a pipe.
  const base = program.configureOutput() as Required<OutputConfiguration>;
  const env = process.env;
  const output: OutputConfiguration = {
    // Printed below, once the error says what failed (commander's own line names no command).
    outputError: () => undefined,
    writeOut,
    // (80: the width commander gives a stream that is not a terminal.)
    getOutHelpWidth: () => (stdoutMayBeTerminal() ? base.getOutHelpWidth() : 80),
    getOutHasColors: () => (stdoutMayBeTerminal() || env.FORCE_COLOR !== undefined || env.CLICOLOR_FORCE !== undefined ? base.getOutHasColors() : false),
  };
  const override = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.configureOutput(output);
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
      // `chatflow <group>` alone: commander printed the group's help, to stderr.
      if (err.code === 'commander.help') return EXIT.usage;
      const { usageLine } = await import('./core/usage.js');
      process.stderr.write(`chatflow: ${usageLine(program, argv.slice(2), err.message)}\n`);
      return EXIT.usage;
    }
    // Handlers' failures are printed by their run; anything reaching here is ours.
    const [{ BugError }, { printError }] = await Promise.all([import('./base/errors.js'), import('./core/output.js')]);
    return printError(new BugError(err instanceof Error ? err.message : String(err), { cause: err }), { debug: program.opts().debug === true });
  }
}
