// The argv walker (completion's, and usage errors' command path): which command the words reach, its operands and options so far,
// the option whose value comes next, and the connection flags given (live ids follow them).
import type { Command, Option } from 'commander';
import { expand } from './tree.js';
import type { CONNECTION } from './flags.js';
import type { FlagValues } from './flag-def.js';

/** The connection flags the words gave (live ids follow them). */
export type ConnectionFlags = Pick<FlagValues<typeof CONNECTION>, 'url' | 'apiKey' | 'profile'>;

export interface Walk {
  cmd: Command;
  /** Names of the commands walked, from the top: ['variables', 'delete']. */
  path: string[];
  /** Operands given to `cmd` so far. */
  operands: string[];
  /** Options given to `cmd` so far. */
  used: Set<Option>;
  /** The option whose value the next word is. */
  pending?: Option;
  /** After `help`: the words name commands. */
  help: boolean;
  /** After `--`: every word is an operand. */
  dashDash: boolean;
  conn: ConnectionFlags;
}

export const takesValue = (o: Option) => o.required || o.optional;
export const repeatable = (o: Option) => o.variadic || o.parseArg !== undefined;
export const firstLine = (s: string | undefined) => (s ?? '').split('\n')[0]!.trim();

export function findOption(cmd: Command, flag: string): Option | undefined {
  return cmd.options.find((o) => o.long === flag || o.short === flag);
}

function findCommand(cmd: Command, name: string): Command | undefined {
  expand(cmd);
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/** The implicit `help [command]` of a command with subcommands (unless it has its own `help`). */
const hasHelpCommand = (cmd: Command) => {
  expand(cmd);
  return cmd.commands.length > 0 && !findCommand(cmd, 'help');
};

function setValue(w: Walk, o: Option, value: string): void {
  if (o.long === '--url') w.conn.url = value;
  else if (o.long === '--api-key') w.conn.apiKey = value;
  else if (o.long === '--profile') w.conn.profile = value;
}

export function walk(program: Command, words: string[]): Walk {
  const w: Walk = { cmd: program, path: [], operands: [], used: new Set(), help: false, dashDash: false, conn: {} };
  for (const word of words) {
    if (w.pending) {
      const o = w.pending;
      w.pending = undefined;
      // commander: an optional value is the next word unless that looks like an option
      if (!(o.optional && word.startsWith('-'))) {
        setValue(w, o, word);
        continue;
      }
    }
    if (!w.dashDash && word === '--') {
      w.dashDash = true;
      continue;
    }
    if (!w.dashDash && word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=');
      const o = findOption(w.cmd, eq > 0 ? word.slice(0, eq) : word);
      if (o) {
        w.used.add(o);
        if (eq > 0) setValue(w, o, word.slice(eq + 1));
        else if (takesValue(o)) w.pending = o;
      }
      continue;
    }
    if (!w.dashDash && word.startsWith('-') && word.length > 1) {
      // -q, -o json, -ojson, -qy
      for (let i = 1; i < word.length; i++) {
        const o = findOption(w.cmd, `-${word[i]}`);
        if (!o) break;
        w.used.add(o);
        if (takesValue(o)) {
          const rest = word.slice(i + 1);
          if (rest) setValue(w, o, rest);
          else w.pending = o;
          break;
        }
      }
      continue;
    }
    if (w.operands.length === 0 && !w.dashDash) {
      const sub = findCommand(w.cmd, word);
      if (sub) {
        expand(sub);
        w.cmd = sub;
        w.path.push(sub.name());
        w.used = new Set();
        continue;
      }
      if (!w.help && word === 'help' && hasHelpCommand(w.cmd)) {
        w.help = true;
        continue;
      }
    }
    w.operands.push(word);
  }
  return w;
}
