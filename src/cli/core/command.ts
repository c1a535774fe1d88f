// Commands as data. A command is a definition (name, aliases, arguments, flags with their value
// sets, examples) and a handler in its own module, imported only when that command runs. The
// commander tree, `--help`, completion and docs/commands.md are all built from definitions.
//
// A definition names no handler: the handler's module imports the definition's type (its
// arguments and flags, `Flags<typeof def>`), and the registry (../commands.ts) binds each
// definition to a loader of its handler, checked against that type. So a flag renamed in a
// definition fails the compile where a handler reads it, and no import runs in a circle.
import type { Command } from 'commander';
import type { Context } from './context.js';
import type { ArgDef, ArgValues, FlagDef, FlagValues } from './flag-def.js';

export interface CommandDef {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** One line: the help's description and completion's. */
  readonly summary: string;
  readonly args?: readonly ArgDef[];
  readonly flags?: readonly FlagDef[];
  readonly examples?: readonly string[];
  /** More help after the examples. */
  readonly notes?: string;
  readonly hidden?: boolean;
  /** The handler gets the raw program and words; no Output, unknown options allowed (`__complete`). */
  readonly bare?: boolean;
  readonly commands?: readonly CommandDef[];
  /** Imports the handler; set by bind() in the registry, never in a definition. */
  readonly handler?: () => Promise<ErasedHandler>;
}

/** A definition with its literal flags and arguments kept, so a handler's parameters derive from it. */
export const command = <const D extends CommandDef>(def: D): D => def;

/** A group's subcommand by name: `Sub<typeof variables, 'list'>`. */
export type Sub<G extends CommandDef, Name extends string> = Extract<NonNullable<G['commands']>[number], { name: Name }>;
type FlagsOfDef<D extends CommandDef> = D extends { flags: infer F extends readonly FlagDef[] } ? FlagValues<F> : Record<never, never>;
/** The flags of a definition (or of its subcommand `Name`), as its handler gets them: `Flags<typeof variables, 'list'>`. */
export type Flags<D extends CommandDef, Name extends string = never> = [Name] extends [never] ? FlagsOfDef<D> : FlagsOfDef<Sub<D, Name>>;
/** The arguments of a definition, in order. */
export type Args<D extends CommandDef> = D extends { args: infer A } ? ArgValues<A> : [];

/**
 * A handler: the run's context, then the arguments in order, then the flags (checked by their value
 * sets). It answers nothing (exit 0) or an exit code; failures are thrown (base/errors.ts). A bare
 * handler gets the program instead of a context, and must never fail or print.
 */
export type Handler<D extends CommandDef> = D extends { bare: true }
  ? (program: Command, ...params: [...Args<D>, Flags<D>]) => Promise<void>
  : (ctx: Context, ...params: [...Args<D>, Flags<D>]) => Promise<number | void>;

/** Any handler, as the run machinery holds it (the value sets checked what it passes). */
export type ErasedHandler = (first: never, ...params: never[]) => Promise<number | void>;

/** Calls a handler with what commander parsed, checked by the value sets: the one place its types are set aside. */
export const invoke = (handler: ErasedHandler, first: Context | Command, params: readonly unknown[]): Promise<number | void> =>
  (handler as (first: unknown, ...params: unknown[]) => Promise<number | void>)(first, ...params);

/** What binds a definition: its handler's loader, or, for a group, one for each subcommand by name. */
export type Loaders<D extends CommandDef> = D extends { commands: readonly CommandDef[] }
  ? { [S in D['commands'][number] as S['name']]: Loaders<S> }
  : () => Promise<Handler<D>>;

/** The definition with its handlers' loaders (the registry's one way to make a runnable command). */
export const bind = <const D extends CommandDef>(def: D, loaders: Loaders<D>): CommandDef => bound(def, loaders);

// (Below the types: a loader, or a record of them by subcommand name.)
type Untyped = (() => Promise<ErasedHandler>) | { [name: string]: Untyped };
function bound(def: CommandDef, loaders: Untyped): CommandDef {
  if (typeof loaders === 'function') return { ...def, handler: loaders };
  return { ...def, commands: def.commands?.map((sub) => bound(sub, loaders[sub.name]!)) };
}
