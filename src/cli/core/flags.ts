// Flags many commands share. Program-level flags are positional (given before the subcommand),
// so each command that talks to a server also carries them itself: `chatflow variables list -o
// json --url …` reads naturally, and `serve --api-key` can mean the keys it accepts.
import { MAX_PAGE_SIZE } from '../../schema/limits.js';
import { FORMATS } from '../base/formats.js';
import { flagList, type FlagDef, type FlagValues } from './flag-def.js';
import { CHATFLOW, choices, INPUT_FILE, PROFILES } from '../base/values.js';

export const GENERAL = flagList([
  { flags: '--debug', help: 'log each request (and stack traces) to stderr; keys are redacted' },
  { flags: '--no-color', help: 'no colour (also NO_COLOR or TERM=dumb)' },
  { flags: '--no-input', help: 'never prompt; fail with exit 2 when a value is missing' },
]);

export const TIMEOUT = {
  flags: '--timeout <seconds>',
  help: 'deadline of each request (default 30): a whole answer within it; a streamed list must start within it and bring a record (or 64 KiB) in every such stretch',
} as const satisfies FlagDef;

export const API_KEY_FILE = { flags: '--api-key-file <path>', help: 'read the API key from the first line of this file (- for stdin)', values: INPUT_FILE } as const satisfies FlagDef;

export const CONNECTION = flagList([
  { flags: '--url <url>', help: 'server URL, e.g. http://host:3000 (env CHATFLOW_URL)' },
  { flags: '--api-key <key>', help: 'API key (env CHATFLOW_API_KEY); visible in ps: prefer --api-key-file or the env' },
  API_KEY_FILE,
  { flags: '--profile <name>', help: 'configuration profile (env CHATFLOW_PROFILE)', values: PROFILES },
  TIMEOUT,
]);

export const OUTPUT = flagList([
  { flags: '-o, --output <format>', help: 'output format (default: table on a terminal, else json; wide: a table with nothing cut or hidden)', values: choices(FORMATS) },
  { flags: '--json', help: 'same as -o json' },
  { flags: '--fields <list>', help: 'columns or keys to show, comma-separated (dots reach nested keys)' },
  { flags: '-q, --quiet', help: 'ids only, one a line' },
  { flags: '--utc', help: 'dates in UTC, in tables and date filters (default: the local time zone)' },
  { flags: '--no-pager', help: 'never page a long output on a terminal (also PAGER=cat)' },
]);

/** A command that reads or writes data on a server. */
export const DATA = flagList([...CONNECTION, ...OUTPUT, ...GENERAL]);

export const PAGE = flagList([
  { flags: '--page <n>', help: 'page number, from 1 (the total goes to stderr)' },
  { flags: '--limit <n>', help: `page size, at most ${MAX_PAGE_SIZE}` },
]);
export type PageFlags = FlagValues<typeof PAGE>;

/** A progress bar on stderr for long work: on a terminal unless --no-progress, elsewhere with --progress. */
export const PROGRESS = flagList([
  { flags: '--progress', help: 'show progress on stderr even when it is not a terminal' },
  { flags: '--no-progress', help: 'no progress bar, even on a terminal' },
]);

const DRY_RUN = { flags: '--dry-run', help: 'print the request that would be sent, and send nothing' } as const satisfies FlagDef;
const YES = { flags: '-y, --yes', help: 'do not ask for confirmation' } as const satisfies FlagDef;

/** `-y, --yes` (destructive changes) and `--dry-run`, for a command that changes data. */
export function mutation(opts: { destructive: true }): readonly [typeof YES, typeof DRY_RUN];
export function mutation(): readonly [typeof DRY_RUN];
export function mutation(opts: { destructive?: boolean } = {}): readonly FlagDef[] {
  return opts.destructive ? [YES, DRY_RUN] : [DRY_RUN];
}
export type MutationFlags = FlagValues<readonly [typeof YES, typeof DRY_RUN]>;

/** A whole JSON request body from a file (create, update). */
export const BODY_FILE = { flags: '--file <path>', help: 'whole JSON body from a file, or - for stdin (flags override its keys)', values: INPUT_FILE } as const satisfies FlagDef;

/** The chatflows a command over many acts on (./chatflow-scope.ts). */
export const SCOPE = flagList([
  { flags: '--chatflow <id|name>', help: 'a chatflow, by id or name (repeatable)', values: CHATFLOW, repeatable: true },
  { flags: '--all-chatflows', help: 'every chatflow the server lists' },
]);
export type ScopeFlags = FlagValues<typeof SCOPE>;

/**
 * The flags of `flags` that belong to a group every command shares (connection, output, general),
 * when the command carries the whole group: help lists them after the command's own.
 */
export function sharedFlags(flags: readonly FlagDef[]): Set<FlagDef> {
  return new Set([CONNECTION, OUTPUT, GENERAL].filter((group) => group.every((f) => flags.includes(f))).flat());
}
