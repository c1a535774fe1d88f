// The CLI's error classes and its documented exit codes, and the one funnel that turns any failure
// (ours, the client's kinds and statuses, a prompt's Ctrl-C) into an exit code and the line the
// user reads. The client knows nothing of exit codes or flags; the words for them are added here.
import { ChatflowError } from '../../client/errors.js';

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
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Wrong invocation (bad flag value, missing argument): exit 2. */
export class UsageError extends UserError {
  override name = 'UsageError';
  constructor(message: string, options?: ErrorOptions) {
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
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'ExitPromptError' || name === 'Interrupted') return EXIT.interrupted;
  return EXIT.error;
}

const KEY_ADVICE = "set one with --api-key, CHATFLOW_API_KEY or 'chatflow login'";
const START_ADVICE = "start one with 'chatflow serve' or point --url at a running server";

/** The line the user reads: the error's message, and what to do in the CLI's words (flags, commands). */
export function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ChatflowError) {
    if (err.kind === 'http' && err.status === 401) return `${message} (${KEY_ADVICE})`;
    if (err.kind === 'network' && err.code === 'ECONNREFUSED') return `${message}: ${START_ADVICE}`;
  }
  if (err instanceof BugError) return `${message} (a bug in chatflow; --debug shows where)`;
  return message;
}
