// Value sets: what a flag or an argument takes, named once. A set serves completion (its
// candidates, or where to find them: live ids, profiles, files) and, when it has `parse`, checks
// and normalises the value before the handler runs (`--order DESC` arrives as `desc`).
import { ASSISTANT_TOOLS, ASSISTANT_TYPES, CHAT_TYPES, RATINGS, SORT_ORDERS, VARIABLE_TYPES } from '../../schema/enums.js';
import type { ChatflowClient } from '../../client/index.js';
import { parseWhen, timeZone } from './dates.js';
import { UsageError } from './errors.js';
import type { PathUse } from './paths.js';

export interface Candidate {
  value: string;
  description?: string;
  /** Offered only when no other candidate matches what was typed: a record's name beside its id. */
  fallback?: boolean;
}

/** `chats`: the chats of the chatflow named by the command's first operand (`chats show F <TAB>`). */
export type LiveKind = 'chatflows' | 'variables' | 'assistants' | 'upsert-history' | 'credentials' | 'chats';

/** `T`: what `parse` answers, the type a handler gets (a string unless a set's `parse` says otherwise). */
export type ValueSet<T = unknown> =
  | {
      kind: 'list';
      items: readonly Candidate[];
      parse?: (text: string, flag: string) => T;
      /** Checked by commander itself (`-o`, `completion <shell>`): its usage error, before anything runs. */
      choices?: boolean;
    }
  | {
      kind: 'live';
      live: LiveKind;
      /** The id a typed value means (a name looked up on the server), before the handler runs. */
      resolve?: (client: ChatflowClient, text: string) => Promise<string>;
    }
  | { kind: 'profiles' }
  /** Paths; `use` makes them checked before the handler runs (./paths.ts). */
  | { kind: 'files'; use?: PathUse };

/** A list of values offered by completion; `parse` checks and normalises what was typed. */
export function list<T = string>(values: readonly string[], describe?: (v: string) => string | undefined, parse?: (text: string, flag: string) => T): ValueSet<T> {
  return { kind: 'list', items: values.map((value) => ({ value, description: describe?.(value) })), ...(parse ? { parse } : {}) };
}

export interface EnumOptions {
  describe?: (v: string) => string | undefined;
  /** Short forms offered beside the values (lower case): `up` → `THUMBS_UP`. */
  aliases?: Record<string, string>;
  /** Other words accepted but not offered (lower case): `days` → `day`. */
  synonyms?: Record<string, string>;
  /**
   * Free text on the server (a newer Flowise may add values): an unknown value goes as typed, or,
   * given a test, only a value it passes (others are refused, with `openHint` after the list).
   */
  open?: boolean | ((text: string) => boolean);
  openHint?: string;
}

/**
 * The canonical spelling of `text` among `values` (or an alias), matched without regard to case:
 * every enum flag accepts `internal`, `Internal` or `INTERNAL` and sends what the server spells.
 */
function canonical(values: readonly string[], aliases: Record<string, string>, text: string): string | undefined {
  const lower = text.toLowerCase();
  return values.find((v) => v.toLowerCase() === lower) ?? aliases[lower];
}

/** `a, b or c`. */
const alternatives = (words: readonly string[]): string =>
  words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : (words[0] ?? '');

/**
 * An enumeration: matched without regard to case, answered in its canonical spelling (one of
 * `values`, the type a handler gets; any string when the set is open).
 */
export function oneOf<const V extends string>(values: readonly V[], opts?: EnumOptions & { open?: false }): ValueSet<V>;
export function oneOf(values: readonly string[], opts: EnumOptions): ValueSet<string>;
export function oneOf(values: readonly string[], opts: EnumOptions = {}): ValueSet<string> {
  const aliases = opts.aliases ?? {};
  const accepted = { ...opts.synonyms, ...aliases };
  const parse = (text: string, flag: string) => {
    const hit = canonical(values, accepted, text);
    if (hit !== undefined) return hit;
    if (opts.open === true || (opts.open && opts.open(text))) return text;
    throw new UsageError(`invalid ${flag} "${text}": use ${alternatives([...Object.keys(aliases), ...values])}${opts.openHint ? ` ${opts.openHint}` : ''}`);
  };
  return list([...values, ...Object.keys(aliases)], opts.describe, parse);
}

/** A closed list that commander checks as it parses (its usage error, before anything runs), in any case. */
export const choices = <const V extends string>(values: readonly V[]): ValueSet<V> => ({ kind: 'list', items: values.map((value) => ({ value })), choices: true });

/** What commander's choices check gets: the canonical spelling when the text matches one in any case. */
export const choiceOf = (values: readonly string[], text: string): string => canonical(values, {}, text) ?? text;

/** A value of `set` as its `parse` answers it (a value from a --file body or a prompt, checked like the flag). */
export function parseValue<T>(set: ValueSet<T>, text: string, flag: string): T | string {
  return set.kind === 'list' && set.parse ? set.parse(text, flag) : text;
}

export const live = (kind: LiveKind): ValueSet => ({ kind: 'live', live: kind });
export const PROFILES: ValueSet = { kind: 'profiles' };
/** Any path (completion offers files; nothing is checked: a path on the server, a database to create). */
export const FILES: ValueSet = { kind: 'files' };
/** A file the command reads (or - for stdin): it must exist and be readable before any work. */
export const INPUT_FILE: ValueSet = { kind: 'files', use: 'read' };
/** A file the command writes (or - for stdout): its directory must exist, and it must not be one. */
export const OUTPUT_FILE: ValueSet = { kind: 'files', use: 'write' };

const RATING_TEXT: Record<string, string> = { THUMBS_UP: 'thumbs up', THUMBS_DOWN: 'thumbs down', up: 'THUMBS_UP', down: 'THUMBS_DOWN' };
/** `up`/`down` are short forms of the ratings. */
export const RATING = oneOf(RATINGS, { describe: (v) => RATING_TEXT[v], aliases: { up: 'THUMBS_UP', down: 'THUMBS_DOWN' } });

/** A period of `stats --by`: the two words offered, their plurals and initials accepted. */
export const PERIOD = oneOf(['day', 'hour'], { synonyms: { days: 'day', d: 'day', hours: 'hour', h: 'hour' } });

export const ORDER = oneOf(SORT_ORDERS, { describe: (v) => (v === 'asc' ? 'oldest first' : 'newest first') });
export const ASSISTANT_TYPE = oneOf(ASSISTANT_TYPES);
export const ASSISTANT_TOOL = oneOf(ASSISTANT_TOOLS);
/** A date or date-time, checked here: Flowise ignores one it cannot read (every record matches). */
export const DATE = list([], undefined, (text, flag) => {
  // The form is checked here; the instant it means, in the run's zone, is taken by the handler.
  parseWhen(text, 'start', flag, timeZone({ utc: true }));
  return text;
});

/**
 * Known chat types in any case, sent as the server spells them (Flowise compares exactly); a type
 * newer than this list goes as typed only in capitals, as every server spells one: `mcp2` could
 * match nothing and is refused, never sent to list nothing.
 */
export const CHAT_TYPE = oneOf(CHAT_TYPES, { open: (text) => /^[A-Z][A-Z0-9_]*$/.test(text), openHint: "(or a newer server's type as it spells it, in capitals)" });
export const VARIABLE_TYPE = oneOf(VARIABLE_TYPES, { open: true });
/** A chat id of the chatflow given before it: completion offers the newest, with their first questions. */
export const CHAT: ValueSet = live('chats');
/** A chatflow id, or the name of one on a server that keeps names (./names.ts). */
export const CHATFLOW: ValueSet = {
  kind: 'live',
  live: 'chatflows',
  resolve: async (client, text) => (await import('./names.js')).chatflowId(client, text),
};
