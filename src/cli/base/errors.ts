// The CLI's error classes and its documented exit codes, and the one funnel that turns any failure
// (ours, the client's kinds and statuses, a prompt's Ctrl-C) into an exit code and the line the
// user reads. The client knows nothing of exit codes or flags; the words for them are added here.
import { ChatflowError, UNANSWERED, type Operation } from '../../client/errors.js';
import { API_PREFIX, ROUTE_PATHS } from '../../schema/paths.js';

/** The documented exit codes of `chatflow` (listed in `chatflow --help`). */
export const EXIT = {
  ok: 0,
  /** Server error, unexpected or unreadable answer, a bug. */
  error: 1,
  /** Wrong invocation, refused confirmation, or a request the server rejected as invalid. */
  usage: 2,
  notFound: 3,
  /** Unauthorized or forbidden. */
  auth: 4,
  /** The server cannot be reached or did not answer in time. */
  unreachable: 5,
  /** Ctrl-C in a prompt. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A failure the user can fix or must know about (a bad flag value, a missing record, a refused
 * confirmation): one line, no stack unless --debug, and the given exit code.
 */
export class UserError extends Error {
  override name = 'UserError';
  /** The line is led by the command (`feedback update: invalid <id> …`), as commander's usage errors are. */
  readonly scoped: boolean;
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    options?: UserErrorOptions,
  ) {
    super(message, options);
    this.scoped = options?.scoped === true;
  }
}

export interface UserErrorOptions extends ErrorOptions {
  scoped?: boolean;
}

/** Wrong invocation (bad flag value, missing argument): exit 2. */
export class UsageError extends UserError {
  override name = 'UsageError';
  constructor(message: string, options?: UserErrorOptions) {
    super(message, EXIT.usage, options);
  }
}

/** Something that should not happen: exit 1, and the report says it is ours. */
export class BugError extends Error {
  override readonly name = 'BugError';
}

/** 400/405/409/412/413/422: the server rejected the request as invalid (a usage error). */
const USAGE_STATUSES = new Set([400, 405, 409, 412, 413, 422]);

/** The exit code a failed HTTP status means (`chatflow api` mirrors it). */
export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (USAGE_STATUSES.has(status)) return EXIT.usage;
  return EXIT.error;
}

function clientExitCode(err: ChatflowError): number {
  if (err.code === 'ERR_INVALID_URL') return EXIT.usage;
  if (err.kind === 'network' || err.kind === 'timeout') return EXIT.unreachable;
  if (err.kind === 'refused') return EXIT.usage;
  if (err.kind === 'http' && err.status !== undefined) return exitCodeForStatus(err.status);
  return EXIT.error;
}

/** Exit code for any error: ours, the client's, a prompt's Ctrl-C; anything else is 1. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof ChatflowError) return clientExitCode(err);
  if (err instanceof UserError) return err.exitCode;
  // The store's: no SQLite can be loaded on this machine (its line says what to do instead).
  if ((err as { code?: unknown } | null)?.code === 'CHATFLOW_NO_SQLITE') return EXIT.usage;
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'ExitPromptError' || name === 'Interrupted') return EXIT.interrupted;
  return EXIT.error;
}

const KEY_ADVICE = "set one with --api-key, CHATFLOW_API_KEY or 'chatflow login'";
const START_ADVICE = "start one with 'chatflow serve' or point --url at a running server";

/** What the funnel knows of the command that failed, to speak in its words. */
export interface ErrorWords {
  /** The command as typed, without `chatflow` and the arguments: `variables list`. */
  command?: string;
  /** The command's flag for a field the server names (`startDate` → `--start-date`). */
  flagOf?: (field: string) => string | undefined;
  /** `chatflow api`: the user typed the route, so the client's message (which names it) stays. */
  raw?: boolean;
}

/** What to do about a connection that failed, by its code. */
function networkAdvice(code: string | undefined): string | undefined {
  if (code === 'ECONNREFUSED') return START_ADVICE;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'check the host name in --url';
  // A certificate no CA this process trusts has signed (a private CA, a self-signed one).
  if (code && /SELF_SIGNED|UNABLE_TO_(?:VERIFY|GET_ISSUER)/.test(code)) return 'trust its CA with NODE_EXTRA_CA_CERTS=<ca.pem>';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'its certificate names another host: check the host name in --url';
  return undefined;
}

const GERUND: Record<Operation, string> = { read: 'reading', create: 'creating', update: 'updating', delete: 'deleting', import: 'importing' };

/** `reading variables`: the call, in words (no route). */
const doing = (err: ChatflowError) => (err.operation ? `${GERUND[err.operation]} ${err.resource}` : 'this request');

const seconds = (ms: number) => (ms >= 1000 ? `${+(ms / 1000).toFixed(1)}s` : `${ms}ms`);

/** A route as a server's words name it (`PUT /feedback/<id>`), its id captured. */
const named = ({ method, path }: { method: string; path: string }) => new RegExp(`\\b${method} ${path.replace(/:\w+/, '([^\\s:;,]+)')}`, 'g');
/** Routes a server may advise in its words, and the command that does it. */
const ROUTE_COMMANDS: [RegExp, string][] = [[named(ROUTE_PATHS.updateFeedback), "'chatflow feedback update $1'"]];
/** A route in a server's message: `no route GET /api/v1/x`, `POST is not allowed on /api/v1/x`. */
const ROUTE = new RegExp(`\\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) /\\S*|${API_PREFIX}\\b`);

/**
 * A server's refusal in the words the user typed: a field it names (`startDate must be…`,
 * `details.temperature must be…`) becomes the command's flag for it (`--start-date must be…`),
 * a route it advises becomes the command (`chatflow feedback update <id>`).
 */
function refusalInUserWords(message: string, flagOf: ErrorWords['flagOf']): string {
  let out = message;
  if (flagOf) {
    out = out.replace(/(^|[:;]\s+)([A-Za-z_][\w.]*)(?= (?:must|is|should|cannot|has|needs)\b)/g, (all, lead: string, field: string) => {
      const flag = flagOf(field.replace(/^details\./, '').replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
      return flag ? `${lead}${flag}` : all;
    });
  }
  for (const [route, command] of ROUTE_COMMANDS) out = out.replace(route, command);
  return out;
}

/**
 * A client error in the CLI's words: the parts the client gives (kind, status, the records and
 * operation, the server's message) worded without a route, and `scoped` when the line is about
 * the command rather than a value the user gave (a timeout, an unreadable answer, a refused key).
 */
function clientWords(err: ChatflowError, words: ErrorWords): { text: string; scoped: boolean } {
  const server = err.server ?? 'the server';
  switch (err.kind) {
    case 'timeout':
      return {
        text: err.midway
          ? `${server} stopped sending ${err.resource ?? 'the list'}: nothing came for ${seconds(err.timeoutMs ?? 0)} (--timeout)`
          : `${server} did not answer within ${seconds(err.timeoutMs ?? 0)} (--timeout)`,
        scoped: true,
      };
    case 'network': {
      if (err.code === 'ERR_INVALID_URL') return { text: err.message, scoped: false };
      const why = err.code && err.reason !== err.code ? ` (${err.code})` : '';
      if (err.midway) return { text: `lost the connection to ${server} while ${doing(err)}${why}`, scoped: true };
      const text = `cannot reach ${server} (${err.reason ?? 'unknown error'})`;
      const advice = networkAdvice(err.code);
      return { text: advice ? `${text}: ${advice}` : text, scoped: true };
    }
    case 'invalid-response':
      return { text: `the server's answer to ${doing(err)} ${err.reason ?? 'cannot be read'}`, scoped: true };
    case 'unsupported':
      return { text: `this server does not support ${doing(err)}`, scoped: true };
    case 'http':
      break;
    default:
      return { text: err.message, scoped: false };
  }
  const status = err.status ?? 0;
  if (status === 401) return { text: `${err.message} (${KEY_ADVICE})`, scoped: false };
  if (status === 403) {
    const told = err.serverMessage;
    const said = told && told.toLowerCase() !== 'forbidden' && !ROUTE.test(told) ? `: ${told}` : '';
    const what = err.operation ? `${err.operation} ${err.resource}` : 'do this';
    return { text: `forbidden: the API key may not ${what}${refusalInUserWords(said, words.flagOf)}`, scoped: true };
  }
  if (err.reason === 'redirect') return { text: `the server answered ${doing(err)} with a redirect (HTTP ${status}): check --url`, scoped: true };
  // The server's own words (or the client's, a 404 it made), unless they name a route (our
  // service's `no route GET /…`) or there were none (`unanswered`).
  const said = err.reason === UNANSWERED ? undefined : (err.serverMessage ?? err.message);
  if (said && !ROUTE.test(refusalInUserWords(said, undefined))) {
    return { text: status >= 400 && status < 500 ? refusalInUserWords(said, words.flagOf) : said, scoped: false };
  }
  const text =
    status === 404
      ? `not found (HTTP 404) when ${doing(err)}`
      : status >= 500
        ? `the server failed ${doing(err)} (HTTP ${status})`
        : `the server rejected ${doing(err)} (HTTP ${status})`;
  return { text, scoped: true };
}

/** The message the user reads: the error's, in the CLI's words (flags and commands, never routes). */
export function messageOf(err: unknown, words: ErrorWords = {}): string {
  return describe(err, words).text;
}

/**
 * The error line after `chatflow: `: the message, led by the command (`variables list: …`) when
 * it is about the command (a timeout, an unreadable answer) rather than a value the user gave.
 */
export function lineOf(err: unknown, words: ErrorWords = {}): string {
  const { text, scoped } = describe(err, words);
  return scoped && words.command ? `${words.command}: ${text}` : text;
}

function describe(err: unknown, words: ErrorWords): { text: string; scoped: boolean } {
  if (err instanceof ChatflowError) {
    if (!words.raw) return clientWords(err, words);
    if (err.kind === 'http' && err.status === 401) return { text: `${err.message} (${KEY_ADVICE})`, scoped: false };
    if (err.kind === 'network' && err.code === 'ECONNREFUSED') return { text: `${err.message}: ${START_ADVICE}`, scoped: false };
    return { text: err.message, scoped: false };
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof BugError) return { text: `${message} (a bug in chatflow; --debug shows where)`, scoped: false };
  return { text: message, scoped: err instanceof UserError && err.scoped };
}
