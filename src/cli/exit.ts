// Documented exit codes of the `chatflow` command, and the usage error (exit 2).

import { EXIT as CLIENT_EXIT } from '../client/errors.js';

/** The client's codes (what a failed request means) plus the CLI's own. */
export const EXIT = { ok: 0, ...CLIENT_EXIT, interrupted: 130 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Wrong invocation (bad flag value, missing argument): exit 2 with a one-line message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly exitCode = EXIT.usage;
}

/** Exit code for an error: its numeric `exitCode` property if any, else 1 (130 for a prompt Ctrl-C). */
export function exitCodeOf(err: unknown): number {
  const code = (err as { exitCode?: unknown } | null)?.exitCode;
  if (typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 255) return code;
  if ((err as { name?: unknown } | null)?.name === 'ExitPromptError') return EXIT.interrupted;
  return EXIT.error;
}
