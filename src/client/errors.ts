// The one error type of the client. Every failure the CLI can meet (the server said no, the
// server could not be reached, the server answered something we cannot read) becomes a
// ChatflowError with an exit code from the CLI's documented table. Nothing here ever holds request
// headers, so the API key cannot leak through an error.

export type ChatflowErrorKind = 'http' | 'network' | 'timeout' | 'unsupported' | 'invalid-response';

/** The CLI's exit codes. */
export const EXIT = {
  /** Server error, unexpected or unreadable answer. */
  error: 1,
  /** The server rejected the request as invalid. */
  usage: 2,
  notFound: 3,
  /** Unauthorized or forbidden. */
  auth: 4,
  /** The server cannot be reached or did not answer in time. */
  unreachable: 5,
} as const;

export interface ChatflowErrorOptions {
  status?: number;
  exitCode?: number;
  /** HTTP method and path (below /api/v1) of the failed call. */
  method?: string;
  path?: string;
  /** Low-level error code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...). */
  code?: string;
}

export class ChatflowError extends Error {
  override readonly name = 'ChatflowError';
  readonly kind: ChatflowErrorKind;
  readonly status?: number;
  readonly exitCode: number;
  readonly method?: string;
  readonly path?: string;
  readonly code?: string;

  constructor(kind: ChatflowErrorKind, message: string, opts: ChatflowErrorOptions = {}) {
    super(message);
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.method !== undefined) this.method = opts.method;
    if (opts.path !== undefined) this.path = opts.path;
    if (opts.code !== undefined) this.code = opts.code;
    this.exitCode = opts.exitCode ?? defaultExitCode(kind, opts.status);
  }
}

/** 400/405/409/412/413/422: the server rejected the request as invalid (a usage error). */
const USAGE_STATUSES = new Set([400, 405, 409, 412, 413, 422]);

export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (USAGE_STATUSES.has(status)) return EXIT.usage;
  return EXIT.error;
}

function defaultExitCode(kind: ChatflowErrorKind, status: number | undefined): number {
  if (kind === 'network' || kind === 'timeout') return EXIT.unreachable;
  if (kind === 'http' && status !== undefined) return exitCodeForStatus(status);
  return EXIT.error;
}

const MAX_MESSAGE = 500;

/**
 * The server's message, cleaned to one line: Flowise wraps service errors as
 * `Error: assistantsService.getAssistantById - Assistant X not found`; the prefix goes.
 */
export function cleanServerMessage(text: string): string {
  let msg = text.replace(/\s+/g, ' ').trim();
  msg = msg.replace(/^Error:\s*(?:[\w$]+\.[\w$]+\s+-\s+)?/, '');
  if (msg.length > MAX_MESSAGE) msg = `${msg.slice(0, MAX_MESSAGE - 1)}…`;
  return msg;
}

/** Pulls the message out of an error body: our `{message}`, Flowise's `{error}`, or plain text. */
export function serverMessage(contentType: string, text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  if (trimmed.startsWith('{') || contentType.includes('json')) {
    try {
      const body = JSON.parse(trimmed) as unknown;
      if (body && typeof body === 'object') {
        const b = body as Record<string, unknown>;
        for (const key of ['message', 'error', 'msg']) {
          if (typeof b[key] === 'string') return cleanServerMessage(b[key]);
        }
        return '';
      }
      if (typeof body === 'string') return cleanServerMessage(body);
    } catch {
      // not JSON after all: fall through to the text
    }
  }
  // An HTML page (a proxy's or Flowise's UI) says nothing useful in one line.
  if (/^<(!doctype|html)/i.test(trimmed)) return '';
  return cleanServerMessage(trimmed);
}

export interface HttpErrorInput {
  status: number;
  contentType: string;
  text: string;
  method: string;
  path: string;
  /** Whether an API key was sent (it changes the advice of a 401). */
  sentKey: boolean;
}

const KEY_ADVICE = "set one with --api-key, CHATFLOW_API_KEY or 'chatflow login'";

/** Maps an error answer of the server to a ChatflowError (see the table in index.ts). */
export function httpError({ status, contentType, text, method, path, sentKey }: HttpErrorInput): ChatflowError {
  const msg = serverMessage(contentType, text);
  const opts = { method, path };
  if (status === 401) {
    const what = sentKey ? 'refused the API key' : 'requires an API key';
    return new ChatflowError('http', `unauthorized: the server ${what} (${KEY_ADVICE})`, { ...opts, status });
  }
  if (status === 403) {
    const detail = msg && msg.toLowerCase() !== 'forbidden' ? `: ${msg}` : '';
    return new ChatflowError('http', `forbidden: the API key is not allowed to ${method} ${path}${detail}`, { ...opts, status });
  }
  // Flowise reports a missing record as a 500 whose message says so.
  if (status >= 500 && /\bnot found\b/i.test(msg)) {
    return new ChatflowError('http', msg, { ...opts, status: 404 });
  }
  const fallback =
    status === 404
      ? `not found: ${method} ${path}`
      : status >= 500
        ? `the server failed on ${method} ${path} (HTTP ${status})`
        : `the server rejected ${method} ${path} (HTTP ${status})`;
  return new ChatflowError('http', msg || fallback, { ...opts, status });
}
