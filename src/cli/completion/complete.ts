// Shell completion: `chatflow __complete <words...>` answers the candidates for the last word by
// walking the command tree built from the definitions (commands, aliases, options, arguments) and
// the value sets they name, so the per-shell scripts in completions/ hold no command list and a new
// flag completes by itself. Output: one candidate a line, `value` or `value\tdescription`; the line
// `:files` asks the shell to complete file names. Live ids: see live.ts; any failure answers
// nothing, and nothing on stderr.
import type { Argument, Command, Option } from 'commander';
import { expand, valueSetOf } from '../core/tree.js';
import type { Candidate, LiveKind, ValueSet } from '../base/values.js';
import { liveValues, savedProfiles, type LiveControl } from './live.js';
import { findOption, firstLine, repeatable, takesValue, walk, type ConnectionFlags, type Walk } from '../core/walk.js';

export type { Candidate };

/** The marker line that asks the shell script for file-name completion. */
const FILES_MARKER = ':files';

function commandsOf(cmd: Command, help: boolean): Candidate[] {
  const helper = cmd.createHelp();
  const visible = helper.visibleCommands(cmd).filter((c) => !(help && c.name() === 'help'));
  return visible.map((c) => ({ value: c.name(), description: firstLine(c.description()) }));
}

function aliasesOf(cmd: Command): Candidate[] {
  const helper = cmd.createHelp();
  return helper
    .visibleCommands(cmd)
    .flatMap((c) => c.aliases().map((a) => ({ value: a, description: `${c.name()}: ${firstLine(c.description())}` })));
}

function optionsOf(w: Walk, cur: string): Candidate[] {
  const out: Candidate[] = [];
  for (const o of w.cmd.createHelp().visibleOptions(w.cmd)) {
    if (w.used.has(o) && !repeatable(o)) continue;
    const description = firstLine(o.description) || undefined;
    if (o.long) out.push({ value: o.long, description });
    // Short forms only when asked for a bare `-` or that very flag: a `--` list is long enough.
    if (o.short && (cur === '-' || cur === o.short)) out.push({ value: o.short, description });
  }
  return out;
}


/** What the completer needs to know besides the tree; all optional. */
export interface CompleteOptions {
  /** Live values: default `liveValues` (server, cache, timeout). */
  live?: (kind: LiveKind, conn: ConnectionFlags, scope?: string) => Promise<Candidate[]>;
  /** How `liveValues` fetches on a cache miss. */
  liveControl?: LiveControl;
  /** Saved profile names. */
  profiles?: () => Promise<Candidate[]>;
}

async function valuesFor(values: ValueSet | undefined, w: Walk, opts: CompleteOptions): Promise<Candidate[]> {
  if (!values) return [];
  switch (values.kind) {
    case 'list':
      return [...values.items];
    case 'files':
      return [{ value: FILES_MARKER }];
    case 'profiles':
      return (opts.profiles ?? savedProfiles)();
    case 'live':
    {
      // Chats are of the chatflow given before them.
      const scope = values.live === 'chats' ? w.operands[0] : undefined;
      if (values.live === 'chats' && !scope) return [];
      return opts.live ? opts.live(values.live, w.conn, scope) : liveValues(values.live, w.conn, opts.liveControl, process.env, scope);
    }
  }
}

function optionValues(o: Option, w: Walk, opts: CompleteOptions): Promise<Candidate[]> {
  if (o.argChoices && !valueSetOf(o)) return Promise.resolve(o.argChoices.map((value) => ({ value })));
  return valuesFor(valueSetOf(o), w, opts);
}

function argumentValues(arg: Argument, w: Walk, opts: CompleteOptions): Promise<Candidate[]> {
  if (arg.argChoices && !valueSetOf(arg)) return Promise.resolve(arg.argChoices.map((value) => ({ value })));
  return valuesFor(valueSetOf(arg), w, opts);
}

/** Keeps the candidates that start with `prefix` (any case when none match exactly). */
function startingWith(cands: Candidate[], prefix: string): Candidate[] {
  const exact = cands.filter((c) => c.value.startsWith(prefix) || c.value === FILES_MARKER);
  if (exact.some((c) => c.value !== FILES_MARKER) || !prefix) return exact;
  const lower = prefix.toLowerCase();
  return cands.filter((c) => c.value.toLowerCase().startsWith(lower) || c.value === FILES_MARKER);
}

/** The candidates for `prefix`: those that start with it, else the fallbacks (names beside ids) that do. */
function matching(cands: Candidate[], prefix: string): Candidate[] {
  const hits = startingWith(cands.filter((c) => !c.fallback), prefix);
  if (hits.some((c) => c.value !== FILES_MARKER)) return hits;
  const fallbacks = cands.filter((c) => c.fallback);
  return fallbacks.length > 0 ? startingWith(fallbacks, prefix) : hits;
}

/**
 * The candidates for the last of `words` (the words after `chatflow`; the last one is the word
 * being completed, possibly empty), filtered by what it already holds.
 */
export async function complete(program: Command, words: string[], opts: CompleteOptions = {}): Promise<Candidate[]> {
  const done = words.slice(0, -1);
  const cur = words.at(-1) ?? '';
  // Only the groups walked into are built (walk.ts), and the one the words end in.
  const w = walk(program, done);
  expand(w.cmd);

  if (w.pending) return matching(await optionValues(w.pending, w, opts), cur);

  if (!w.dashDash && /^--[^=]+=/.test(cur)) {
    const eq = cur.indexOf('=');
    const o = findOption(w.cmd, cur.slice(0, eq));
    if (!o || !takesValue(o)) return [];
    const head = cur.slice(0, eq + 1);
    return matching(await optionValues(o, w, opts), cur.slice(eq + 1)).map((c) =>
      c.value === FILES_MARKER ? c : { ...c, value: head + c.value },
    );
  }

  if (!w.dashDash && cur.startsWith('-')) return w.help ? [] : matching(optionsOf(w, cur), cur);

  if (w.help) return matching(commandsOf(w.cmd, true), cur);

  if (w.cmd.commands.length > 0 && w.operands.length === 0 && !w.dashDash) {
    const names = matching(commandsOf(w.cmd, false), cur);
    return names.length > 0 || !cur ? names : matching(aliasesOf(w.cmd), cur);
  }

  const args = w.cmd.registeredArguments;
  const last = args.at(-1);
  const arg = args[w.operands.length] ?? (last?.variadic ? last : undefined);
  if (!arg) return [];
  const given = arg.variadic ? new Set(w.operands.slice(args.length - 1)) : new Set<string>();
  return matching(
    // A record given by its id or its name is not offered again, under either.
    (await argumentValues(arg, w, opts)).filter((c) => !given.has(c.value) && !(c.description !== undefined && given.has(c.description))),
    cur,
  );
}

/** `value` or `value\tdescription` a line; tabs and line breaks inside become spaces. */
export function formatCandidates(cands: Candidate[]): string {
  const clean = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();
  const seen = new Set<string>();
  let out = '';
  for (const c of cands) {
    const value = clean(c.value);
    if (!value || seen.has(value)) continue;
    seen.add(value);
    const desc = c.description ? clean(c.description) : '';
    out += desc ? `${value}\t${desc.length > 80 ? `${desc.slice(0, 79)}…` : desc}\n` : `${value}\n`;
  }
  return out;
}
