// Runs a command: one Output and one Context per run, the flags checked by their value sets, the
// handler imported, every failure through the one funnel (Output.error), the client and any
// embedded service released. Answers the exit code.
import type { Argument, Command, Option } from 'commander';
import { getProfile, onConfigWarning } from '../base/config.js';
import { setPromptDefaults } from '../base/prompts.js';
import { invoke, type CommandDef } from './command.js';
import { UsageError, type ErrorWords } from '../base/errors.js';
import { Context, type GlobalFlags } from './context.js';
import { printError, Output } from './output.js';
import { checkPath } from '../base/paths.js';
import { quietOnEpipe } from '../base/stdout.js';
import type { ValueSet } from '../base/values.js';

/**
 * Options of the command and its ancestors, the nearest given value winning: `chatflow -o yaml
 * vars ls -o csv` is csv. (commander's optsWithGlobals lets the ancestors win.) A default never
 * overrides a value that was given.
 */
function mergedOptions(command: Command): Record<string, unknown> {
  const chain: Command[] = [];
  for (let c: Command | null = command; c; c = c.parent) chain.unshift(c);
  const merged: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const cmd of chain) {
    for (const [key, value] of Object.entries(cmd.opts())) {
      const isDefault = cmd.getOptionValueSource(key) === 'default';
      if (value === undefined || (isDefault && (given.has(key) || key in merged))) continue;
      merged[key] = value;
      if (!isDefault) given.add(key);
    }
  }
  return merged;
}

/** Applies the value sets' checks: flags by their long name, arguments in order. */
function checked(cmd: Command, flags: Record<string, unknown>, args: unknown[], valueSets: WeakMap<Option | Argument, ValueSet>): void {
  const check = (set: ValueSet | undefined, value: unknown, name: string): unknown => {
    if (set?.kind === 'files' && set.use && value !== undefined) {
      for (const v of [value].flat()) checkPath(String(v), set.use, name);
      return value;
    }
    if (set?.kind !== 'list' || !set.parse || value === undefined) return value;
    return Array.isArray(value) ? value.map((v) => set.parse!(String(v), name)) : set.parse(String(value), name);
  };
  for (const o of cmd.options) {
    const key = o.attributeName();
    if (key in flags && cmd.getOptionValueSource(key) !== 'default') flags[key] = check(valueSets.get(o), flags[key], o.long ?? o.flags);
  }
  cmd.registeredArguments.forEach((a, i) => {
    args[i] = check(valueSets.get(a), args[i], a.name());
  });
}

/** Values whose set resolves them (a chatflow's name to its id), through the run's client. */
async function resolved(ctx: Context, cmd: Command, flags: Record<string, unknown>, args: unknown[], valueSets: WeakMap<Option | Argument, ValueSet>): Promise<void> {
  const resolve = async (set: ValueSet | undefined, value: unknown): Promise<unknown> => {
    if (set?.kind !== 'live' || !set.resolve || value === undefined) return value;
    const client = await ctx.client();
    return Array.isArray(value) ? Promise.all(value.map((v) => set.resolve!(client, String(v)))) : set.resolve(client, String(value));
  };
  for (const o of cmd.options) {
    const key = o.attributeName();
    if (key in flags) flags[key] = await resolve(valueSets.get(o), flags[key]);
  }
  for (const [i, a] of cmd.registeredArguments.entries()) args[i] = await resolve(valueSets.get(a), args[i]);
}

/** The command's words for the error funnel: its name as typed, and its flag for a server's field. */
function wordsOf(def: CommandDef, cmd: Command): ErrorWords {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  const flagOf = (attr: string) => cmd.options.find((o) => o.long && o.attributeName() === attr)?.long;
  return { command: names.join(' '), flagOf, ...(def.name === 'api' ? { raw: true } : {}) };
}

/** The profile's default format, for a command that prints records (a broken config file: none; one another user could change is refused). */
async function profileOutput(flags: GlobalFlags): Promise<string | undefined> {
  if (flags.output || flags.json) return undefined;
  try {
    return (await getProfile(flags.profile ?? process.env.CHATFLOW_PROFILE)).output;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return undefined;
  }
}

export async function run(def: CommandDef, cmd: Command, args: unknown[], valueSets: WeakMap<Option | Argument, ValueSet>): Promise<number> {
  quietOnEpipe();
  const flags = mergedOptions(cmd) as GlobalFlags & Record<string, unknown>;
  setPromptDefaults({ input: flags.input !== false });
  const prints = cmd.options.some((o) => o.long === '--output');
  let out: Output;
  try {
    out = await Output.open(flags, prints ? await profileOutput(flags) : undefined);
  } catch (err) {
    return printError(err, { debug: flags.debug === true });
  }
  out.words = wordsOf(def, cmd);
  // (A config that others can read, holding a key: one line on stderr, whichever read found it.)
  onConfigWarning((w) => out.warn(w));
  const ctx = new Context(flags, out);
  try {
    checked(cmd, flags, args, valueSets);
    await resolved(ctx, cmd, flags, args, valueSets);
    const handler = await def.handler!();
    return (await invoke(handler, ctx, [...args, flags])) ?? 0;
  } catch (err) {
    return out.error(err);
  } finally {
    await ctx.close().catch(() => undefined);
  }
}
