// What a flag and an argument of a command are (./command.ts), and the types their values
// take in a handler, derived from the definition: the attribute name commander gives a flag
// (`--dry-run` → dryRun, `--no-color` → color), its value set's type, an array when repeatable.
import type { ValueSet } from '../base/values.js';

export interface FlagDef<V = unknown> {
  /** commander's flag syntax: `-o, --output <format>`, `--no-color`, `--tool <tool>`. */
  readonly flags: string;
  readonly help: string;
  /** What the value may be: completion offers it, and its `parse` checks it before the handler. */
  readonly values?: ValueSet<V>;
  /** May be given more than once; the handler gets an array. */
  readonly repeatable?: boolean;
  readonly default?: string;
  /** An environment variable that gives the value when the flag is not given. */
  readonly env?: string;
  /** Must be given (commander reports it as a usage error). */
  readonly required?: boolean;
}

export interface ArgDef<V = unknown> {
  /** `<chatflowId>`, `[chatflowId]`, `<id...>`. */
  readonly name: string;
  readonly help?: string;
  readonly values?: ValueSet<V>;
}

/** A list of flags kept literal, for a group several definitions share (core/flags.ts). */
export const flagList = <const F extends readonly FlagDef[]>(flags: F): F => flags;

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
/** `-o, --output <format>` → `output <format>`. */
type Long<F extends string> = F extends `${string}--${infer R}` ? R : never;
type LongName<F extends string> = Long<F> extends `${infer N} ${string}` ? N : Long<F>;
/** commander's attribute name: `--dry-run` → dryRun, `--no-color` → color. */
type Key<F extends string> = LongName<F> extends `no-${infer P}` ? Camel<P> : Camel<LongName<F>>;
type ValueOf<S> = [S] extends [ValueSet<infer V>] ? (unknown extends V ? string : V) : string;

type FlagValue<D extends FlagDef> =
  Long<D['flags']> extends `${string} <${string}>`
    ? D extends { repeatable: true } ? ValueOf<D['values']>[] : ValueOf<D['values']>
    : Long<D['flags']> extends `${string} [${string}]`
      ? ValueOf<D['values']> | true
      : boolean;
/** Given, or given a default: always there. */
type Present<D extends FlagDef> = D extends { required: true } ? true : D extends { default: string } ? true : false;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The flags a handler gets, by commander's attribute names, with the value types their sets give. */
export type FlagValues<F extends readonly FlagDef[]> = Simplify<
  { [D in F[number] as Present<D> extends true ? Key<D['flags']> : never]: FlagValue<D> } & {
    [D in F[number] as Present<D> extends true ? never : Key<D['flags']>]?: FlagValue<D>;
  }
>;

type ArgValue<A extends ArgDef> = A['name'] extends `${string}...${string}`
  ? ValueOf<A['values']>[]
  : A['name'] extends `[${string}`
    ? ValueOf<A['values']> | undefined
    : ValueOf<A['values']>;
export type ArgValues<A> = A extends readonly [infer H extends ArgDef, ...infer R] ? [ArgValue<H>, ...ArgValues<R>] : [];
