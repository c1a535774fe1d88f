// The one error type of the client. Every failure a caller can meet (the server said no, the
// server could not be reached, the server answered something we cannot read) becomes a
// ChatflowError with a kind and, for an HTTP answer, its status; what those mean to a command
// line (exit codes, advice) is the CLI's business. Nothing here ever holds request headers, so the
// API key cannot leak through an error.

/**
 * `refused`: the client will not send a request this server would not honour exactly (a delete
 * Flowise would widen, an unreadable date it would ignore). `inexact`: the server did more than
 * asked (a delete removed more records than the same filters list).
 */
export type ChatflowErrorKind = 'http' | 'network' | 'timeout' | 'unsupported' | 'invalid-response' | 'refused' | 'inexact';

export interface ChatflowErrorOptions {
  status?: number;
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
  }
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

/** Maps an error answer of the server to a ChatflowError (see the table in index.ts). */
export function httpError({ status, contentType, text, method, path, sentKey }: HttpErrorInput): ChatflowError {
  const msg = serverMessage(contentType, text);
  const opts = { method, path };
  if (status === 401) {
    const what = sentKey ? 'refused the API key' : 'requires an API key';
    return new ChatflowError('http', `unauthorized: the server ${what}`, { ...opts, status });
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
