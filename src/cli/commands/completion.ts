// `chatflow completion <shell>` prints a completion script; the hidden `chatflow __complete
// <words...>` answers it (see ../complete.ts). The scripts live in completions/ at the package root.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Argument, type Command } from 'commander';
import { addGeneralOptions, examples } from '../options.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The script for a shell, from completions/ (dist/cli/commands and src/cli/commands are 3 levels down). */
export function completionScript(shell: Shell): Promise<string> {
  return readFile(new URL(`../../../completions/chatflow.${shell}`, import.meta.url), 'utf8');
}

/** `chatflow __complete --refresh -- <words>`, detached: it outlives this process. */
function spawnRefresher(words: string[]): void {
  const script = process.argv[1];
  if (!script) return;
  const child = spawn(process.execPath, [...process.execArgv, script, '__complete', '--refresh', '--', ...words], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  });
  child.on('error', () => undefined);
  child.unref();
}

export function registerCompletion(program: Command): void {
  addGeneralOptions(
    program
      .command('completion')
      .description('print the tab-completion script for bash, zsh or fish (commands, flags, values and live ids)')
      .addArgument(new Argument('<shell>', SHELLS.join(', ')).choices(SHELLS)),
  )
    .addHelpText(
      'after',
      examples([
        'chatflow completion bash > ~/.local/share/bash-completion/completions/chatflow',
        "echo 'source <(chatflow completion zsh)' >> ~/.zshrc        # after compinit",
        'chatflow completion fish > ~/.config/fish/completions/chatflow.fish',
      ]),
    )
    .action(async (shell: Shell) => {
      process.stdout.write(await completionScript(shell));
    });

  // Called by the scripts with the words after `chatflow` (the last one is being completed):
  // `chatflow __complete -- variables delete ''`. Answers candidates on stdout, never an error.
  program
    .command('__complete', { hidden: true })
    .description('completion candidates for the last word, one a line (value<TAB>description)')
    .argument('[words...]')
    .option('--refresh', 'fill the cache of live values (run detached by __complete itself)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (words: string[] | undefined, opts: { refresh?: boolean }, cmd: Command) => {
      let out = '';
      try {
        const { complete, formatCandidates } = await import('../complete.js');
        const given = words ?? [];
        const spawnRefresh = () => spawnRefresher(given);
        out = formatCandidates(await complete(cmd.parent ?? program, given, { liveControl: { refresh: opts.refresh, spawnRefresh } }));
        if (opts.refresh) out = '';
      } catch {
        out = '';
      }
      process.stdout.on('error', () => process.exit(0));
      if (out) await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
      // Do not wait for a server that did not answer, or an embedded service still starting.
      process.exit(0);
    });
}
