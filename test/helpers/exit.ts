// A client error as the CLI reports it: the client's kind and status, and the line and exit code
// the CLI's one funnel (src/cli/base/errors.ts) makes of them (its advice added to the message).
import { exitCodeOf, messageOf } from '../../src/cli/base/errors.js';
import type { ChatflowError } from '../../src/client/index.js';

export function asReported(e: unknown) {
  const err = e as ChatflowError;
  return { kind: err.kind, status: err.status, code: err.code, message: messageOf(e), exitCode: exitCodeOf(e) };
}
