// Builds the commander tree from the definitions, and runs a command: one Output and one Context
// per run, the flags checked by their value sets, the handler imported, every failure through
// the one funnel (Output.error), the client and any embedded service released.
import { Argument, Command, Option } from 'commander';
import { getProfile } from '../config.js';
import { setPromptDefaults } from '../prompts.js';
import type { ArgDef, CommandDef, FlagDef } from './command.js';
import { Context, type GlobalFlags } from './context.js';
import { printError, Output } from './output.js';
import type { ValueSet } from './values.js';

const valueSets = new WeakMap<Option | Argument, ValueSet>();

/** The value set a definition gave a flag or argument of the tree (completion reads it). */
export const valueSetOf = (o: Option | Argument): ValueSet | undefined => valueSets.get(o);

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

export function option(def: FlagDef): Option {
  const o = new Option(def.flags, def.help);
  if (def.repeatable) o.argParser(collect);
  if (def.default !== undefined) o.default(def.default);
  if (def.env) o.env(def.env);
  if (def.required) o.makeOptionMandatory();
  if (def.values?.kind === 'list' && def.values.choices) o.choices(def.values.items.map((c) => c.value));
  if (def.values) valueSets.set(o, def.values);
  return o;
}

function argument(def: ArgDef): Argument {
  const a = new Argument(def.name, def.help);
  if (def.values?.kind === 'list' && def.values.choices) a.choices(def.values.items.map((c) => c.value));
  if (def.values) valueSets.set(a, def.values);
  return a;
}

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
function checked(cmd: Command, flags: Record<string, unknown>, args: unknown[]): void {
  const check = (set: ValueSet | undefined, value: unknown, name: string): unknown => {
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

/** The profile's default format, for a command that prints records (a broken config file: none). */
async function profileOutput(flags: GlobalFlags): Promise<string | undefined> {
  if (flags.output || flags.json) return undefined;
  try {
    return (await getProfile(flags.profile ?? process.env.CHATFLOW_PROFILE)).output;
  } catch {
    return undefined;
  }
}

async function run(def: CommandDef, cmd: Command, args: unknown[]): Promise<number> {
  const flags = mergedOptions(cmd) as GlobalFlags & Record<string, unknown>;
  setPromptDefaults({ input: flags.input !== false });
  const prints = cmd.options.some((o) => o.long === '--output');
  let out: Output;
  try {
    out = new Output(flags, prints ? await profileOutput(flags) : undefined);
  } catch (err) {
    return printError(err, { debug: flags.debug === true });
  }
  const ctx = new Context(flags, out);
  try {
    checked(cmd, flags, args);
    const handler = await def.handler!();
    return (await handler(ctx, ...args, flags)) ?? 0;
  } catch (err) {
    return out.error(err);
  } finally {
    await ctx.close().catch(() => undefined);
  }
}

function add(parent: Command, def: CommandDef, done: (code: number) => void): void {
  const cmd = parent.command(def.name, { hidden: def.hidden === true }).description(def.summary);
  for (const alias of def.aliases ?? []) cmd.alias(alias);
  for (const a of def.args ?? []) cmd.addArgument(argument(a));
  for (const f of def.flags ?? []) cmd.addOption(option(f));
  if (def.examples || def.notes) cmd.addHelpText('after', (def.examples ? examples(def.examples) : '') + (def.notes ?? ''));
  for (const sub of def.commands ?? []) add(cmd, sub, done);
  if (def.bare) {
    const bare = def.bare;
    cmd.helpOption(false).allowUnknownOption().allowExcessArguments();
    cmd.action(async (...raw: unknown[]) => {
      const handler = await bare();
      await handler(cmd.parent!, ...raw.slice(0, -1));
    });
  } else if (def.handler) {
    cmd.action(async (...raw: unknown[]) => done(await run(def, cmd, raw.slice(0, -2))));
  }
}

/** Adds the commands to `program`; `done` receives the exit code of the command that ran. */
export function addCommands(program: Command, defs: CommandDef[], done: (code: number) => void = () => undefined): Command {
  for (const def of defs) add(program, def, done);
  return program;
}
