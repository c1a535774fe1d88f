// `chatflow completion <shell>` prints a completion script; the hidden `chatflow __complete
// <words...>` answers it (see ../completion/). The scripts live in completions/ at the package root.
import { SHELLS } from './shells.js';
import { command } from '../core/command.js';
import { GENERAL } from '../core/flags.js';
import { choices } from '../base/values.js';

export const completion = command({
  name: 'completion',
  summary: 'print the tab-completion script for bash, zsh or fish (commands, flags, values and live ids)',
  args: [{ name: '<shell>', help: SHELLS.join(', '), values: choices(SHELLS) }],
  flags: GENERAL,
  examples: [
    "echo 'source <(chatflow completion bash)' >> ~/.bashrc      # with or without bash-completion",
    "echo 'source <(chatflow completion zsh)' >> ~/.zshrc        # starts compinit if .zshrc has not",
    'chatflow completion fish > ~/.config/fish/completions/chatflow.fish',
  ],
});

/**
 * Called by the scripts with the words after `chatflow` (the last one is being completed):
 * `chatflow __complete -- variables delete ''`. Answers candidates on stdout, never an error.
 */
export const complete = command({
  name: '__complete',
  hidden: true,
  summary: 'completion candidates for the last word, one a line (value<TAB>description)',
  args: [{ name: '[words...]' }],
  flags: [{ flags: '--refresh', help: 'fill the cache of live values (run detached by __complete itself)' }],
  bare: true,
});
