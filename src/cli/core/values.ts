// Value sets: what a flag or an argument takes, named once. A set serves completion (its
// candidates, or where to find them: live ids, profiles, files) and, when it has `parse`, checks
// and normalises the value before the handler runs (`--order DESC` arrives as `desc`).
import { ASSISTANT_TOOLS, ASSISTANT_TYPES, CHAT_TYPES, RATINGS, SORT_ORDERS, VARIABLE_TYPES } from '../../schema/enums.js';
import { dateBound } from '../date-bounds.js';
import { UsageError } from './errors.js';

export interface Candidate {
  value: string;
  description?: string;
}

export type LiveKind = 'chatflows' | 'variables' | 'assistants' | 'upsert-history';

export type ValueSet =
  | {
      kind: 'list';
      items: readonly Candidate[];
      parse?: (text: string, flag: string) => unknown;
      /** Checked by commander itself (`-o`, `completion <shell>`): its usage error, before anything runs. */
      choices?: boolean;
    }
  | { kind: 'live'; live: LiveKind }
  | { kind: 'profiles' }
  | { kind: 'files' };

/** A list of values; `parse` makes it closed (anything else is a usage error). */
export function list(values: readonly string[], describe?: (v: string) => string | undefined, parse?: (text: string, flag: string) => unknown): ValueSet {
  return { kind: 'list', items: values.map((value) => ({ value, description: describe?.(value) })), ...(parse ? { parse } : {}) };
}

/** A closed set matched without regard to case; answers the canonical spelling. */
export function oneOf(values: readonly string[], describe?: (v: string) => string | undefined, aliases: Record<string, string> = {}): ValueSet {
  const parse = (text: string, flag: string) => {
    const hit = values.find((v) => v.toLowerCase() === text.toLowerCase()) ?? aliases[text.toLowerCase()];
    if (hit === undefined) throw new UsageError(`invalid ${flag} "${text}": use ${[...Object.keys(aliases), ...values].join(', ')}`);
    return hit;
  };
  return list([...values, ...Object.keys(aliases)], describe, parse);
}

/** A closed list that commander checks as it parses. */
export const choices = (values: readonly string[]): ValueSet => ({ kind: 'list', items: values.map((value) => ({ value })), choices: true });

export const live = (kind: LiveKind): ValueSet => ({ kind: 'live', live: kind });
export const PROFILES: ValueSet = { kind: 'profiles' };
export const FILES: ValueSet = { kind: 'files' };

/** `up`/`down` are short forms of the ratings. */
export function rating(value: string, flag: string): (typeof RATINGS)[number] {
  const v = value.toUpperCase();
  const r = v === 'UP' ? 'THUMBS_UP' : v === 'DOWN' ? 'THUMBS_DOWN' : v;
  if (!(RATINGS as readonly string[]).includes(r)) throw new UsageError(`invalid ${flag} "${value}": use up, down, ${RATINGS.join(' or ')}`);
  return r as (typeof RATINGS)[number];
}

const RATING_TEXT: Record<string, string> = { THUMBS_UP: 'thumbs up', THUMBS_DOWN: 'thumbs down', up: 'THUMBS_UP', down: 'THUMBS_DOWN' };
export const RATING = list([...RATINGS, 'up', 'down'], (v) => RATING_TEXT[v], rating);

export const ORDER = list(SORT_ORDERS, (v) => (v === 'asc' ? 'oldest first' : 'newest first'), (text, flag) => {
  const v = text.toLowerCase();
  if (v !== 'asc' && v !== 'desc') throw new UsageError(`invalid ${flag} "${text}": use asc or desc`);
  return v;
});

export const ASSISTANT_TYPE = list(ASSISTANT_TYPES, undefined, (text, flag) => {
  const v = text.toUpperCase();
  if (!(ASSISTANT_TYPES as readonly string[]).includes(v)) throw new UsageError(`invalid ${flag} "${text}": use ${ASSISTANT_TYPES.join(', ')}`);
  return v;
});

export const ASSISTANT_TOOL = list(ASSISTANT_TOOLS, undefined, (text, flag) => {
  if (!(ASSISTANT_TOOLS as readonly string[]).includes(text)) throw new UsageError(`invalid ${flag} "${text}": use ${ASSISTANT_TOOLS.join(', ')}`);
  return text;
});

/** A date or date-time, checked here: Flowise ignores one it cannot read (every record matches). */
export const DATE = list([], undefined, (text, flag) => {
  dateBound(text, 'start', flag);
  return text;
});

/** Free text on the server (a newer Flowise may add types); completion offers the known ones. */
export const CHAT_TYPE = list(CHAT_TYPES);
export const VARIABLE_TYPE = list(VARIABLE_TYPES);
export const CHATFLOW = live('chatflows');
