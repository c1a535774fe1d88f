// Commands as data. A command is a definition (name, aliases, arguments, flags with their value
// sets, examples) and a named handler in its own module, imported only when that command runs.
// The commander tree, `--help`, completion and docs/commands.md are all built from definitions.
import type { Context } from './context.js';
import type { ValueSet } from './values.js';

export interface FlagDef {
  /** commander's flag syntax: `-o, --output <format>`, `--no-color`, `--tool <tool>`. */
  flags: string;
  help: string;
  /** What the value may be: completion offers it, and its `parse` checks it before the handler. */
  values?: ValueSet;
  /** May be given more than once; the handler gets an array. */
  repeatable?: boolean;
  default?: string;
  /** An environment variable that gives the value when the flag is not given. */
  env?: string;
  /** Must be given (commander reports it as a usage error). */
  required?: boolean;
}

export interface ArgDef {
  /** `<chatflowId>`, `[chatflowId]`, `<id...>`. */
  name: string;
  help?: string;
  values?: ValueSet;
}

/**
 * A handler: the run's context, then the arguments in order, then the flags (checked by their value
 * sets). It answers nothing (exit 0) or an exit code; failures are thrown (core/errors.ts).
 */
// The flags' shape belongs to each handler; the definition cannot type it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Handler = (ctx: Context, ...args: any[]) => Promise<number | void>;

/** Like a Handler, for the one command that must never fail or print (`__complete`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BareHandler = (program: import('commander').Command, ...args: any[]) => Promise<void>;

export interface CommandDef {
  name: string;
  aliases?: string[];
  /** One line: the help's description and completion's. */
  summary: string;
  args?: ArgDef[];
  flags?: FlagDef[];
  examples?: string[];
  /** More help after the examples. */
  notes?: string;
  hidden?: boolean;
  /** Imports the handler: `() => import('../handlers/x.js').then((m) => m.list)`. */
  handler?: () => Promise<Handler>;
  /** A handler that gets the raw program and words; no Output, unknown options allowed. */
  bare?: () => Promise<BareHandler>;
  commands?: CommandDef[];
}
