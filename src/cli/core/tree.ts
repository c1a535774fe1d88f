// Builds the commander tree from the definitions. What runs a command (./run.ts) is imported only
// when one runs: --help and a usage error load nothing more than the definitions and commander.
import { Argument, Command, Option } from 'commander';
import { invoke, type CommandDef } from './command.js';
import type { ArgDef, FlagDef } from './flag-def.js';
import { sharedFlags } from './flags.js';
import { addExamples, GLOBAL_HEADING, helpOption } from './help.js';
import { choiceOf, type ValueSet } from '../base/values.js';

const valueSets = new WeakMap<Option | Argument, ValueSet>();

/** The value set a definition gave a flag or argument of the tree (completion reads it). */
export const valueSetOf = (o: Option | Argument): ValueSet | undefined => valueSets.get(o);

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** commander's choices check, given the canonical spelling of what was typed (`-o JSON` is json). */
function anyCase(o: Option | Argument, set: ValueSet & { kind: 'list' }): void {
  const values = set.items.map((c) => c.value);
  o.choices(values);
  const check = o.parseArg!;
  o.argParser((text: string, previous: unknown) => check(choiceOf(values, text), previous));
}

export function option(def: FlagDef): Option {
  const o = new Option(def.flags, def.help);
  if (def.repeatable) o.argParser(collect);
  if (def.default !== undefined) o.default(def.default);
  if (def.env) o.env(def.env);
  if (def.required) o.makeOptionMandatory();
  if (def.values?.kind === 'list' && def.values.choices) anyCase(o, def.values);
  if (def.values) valueSets.set(o, def.values);
  return o;
}

function argument(def: ArgDef): Argument {
  const a = new Argument(def.name, def.help);
  if (def.values?.kind === 'list' && def.values.choices) anyCase(a, def.values);
  if (def.values) valueSets.set(a, def.values);
  return a;
}

/** Commands whose flags, or subcommands, are not built yet, and what builds them. */
const unbuiltFlags = new WeakMap<Command, () => void>();
const unbuiltSubs = new WeakMap<Command, () => void>();

const once = (map: WeakMap<Command, () => void>, cmd: Command) => {
  const build = map.get(cmd);
  map.delete(cmd);
  build?.();
};

/** Builds a command's flags (a line of its parent's help needs them: `[options]`). */
const expandFlags = (cmd: Command): void => once(unbuiltFlags, cmd);

/** Builds a command's flags and subcommands if they are not built yet (completion builds those it walks into). */
export function expand(cmd: Command): void {
  expandFlags(cmd);
  once(unbuiltSubs, cmd);
}

/** commander enters a subcommand through its parent's preSubcommand hook. */
const entering = (_parent: Command, sub: Command): void => expand(sub);

/** A command's help, asked without entering it (`chatflow help <command>`): its lines need the subcommands' flags. */
const helping = (cmd: Command) => (): void => {
  expand(cmd);
  cmd.commands.forEach(expandFlags);
};

function add(parent: Command, def: CommandDef, done: (code: number) => void, lazy: boolean): void {
  const cmd = parent.command(def.name, { hidden: def.hidden === true }).description(def.summary);
  for (const alias of def.aliases ?? []) cmd.alias(alias);
  for (const a of def.args ?? []) cmd.addArgument(argument(a));
  const subs = def.commands ?? [];
  const flags = () => {
    const all = def.flags ?? [];
    const shared = sharedFlags(all);
    // The command's own flags first; those every command shares after, under their own heading.
    for (const f of all) if (!shared.has(f)) cmd.addOption(option(f));
    for (const f of all) if (shared.has(f)) cmd.addOption(option(f).helpGroup(GLOBAL_HEADING));
    // (A bare command has none: its words are all its own.)
    if (!def.bare) cmd.addHelpOption(helpOption());
    addExamples(cmd, def.examples, def.notes);
  };
  const commands = () => subs.forEach((sub) => add(cmd, sub, done, lazy));
  if (lazy) {
    unbuiltFlags.set(cmd, flags);
    if (subs.length > 0) {
      unbuiltSubs.set(cmd, commands);
      cmd.hook('preSubcommand', entering);
    }
    cmd.on('beforeHelp', helping(cmd));
  } else {
    flags();
    commands();
  }
  const load = def.handler;
  if (def.bare && load) {
    cmd.helpOption(false).allowUnknownOption().allowExcessArguments();
    cmd.action(async (...raw: unknown[]) => {
      await invoke(await load(), cmd.parent!, raw.slice(0, -1));
    });
  } else if (load) {
    cmd.action(async (...raw: unknown[]) => {
      const { run } = await import('./run.js');
      done(await run(def, cmd, raw.slice(0, -2), valueSets));
    });
  }
}

/**
 * Adds the commands to `program`; `done` receives the exit code of the command that ran. `lazy`:
 * a command's flags and subcommands are built only when commander is about to enter it (or show
 * its help), so a run pays for the one command it runs, not for all forty commands and their
 * flags (a line of a group's help needs only the name, arguments, summary and its flags).
 */
export function addCommands(program: Command, defs: CommandDef[], opts: { done?: (code: number) => void; lazy?: boolean } = {}): Command {
  const done = opts.done ?? (() => undefined);
  for (const def of defs) add(program, def, done, opts.lazy === true);
  if (opts.lazy) {
    program.hook('preSubcommand', entering);
    // The top level's help names its commands without their flags (core/help.ts): none is built.
    program.on('beforeHelp', () => expand(program));
  }
  return program;
}
