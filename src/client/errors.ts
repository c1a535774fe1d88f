// The one error type of the client. Every failure a caller can meet (the server said no, the
// server could not be reached, the server answered something we cannot read) becomes a
// ChatflowError with a kind and, for an HTTP answer, its status; what those mean to a command
// line (exit codes, advice) is the CLI's business. Nothing here ever holds request headers, so the
// API key cannot leak through an error.
import type { RatedChat } from './chat-feedback.js';

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
  /** What the server said, cleaned to one line (an error answer's message; absent when it said nothing). */
  serverMessage?: string;
  /** The server as shown in messages (no user:password). */
  server?: string;
  /** What went wrong, in words that name no route: `connection refused`, `is not JSON`. */
  reason?: string;
  /** A timeout's limit, in ms. */
  timeoutMs?: number;
  /** The answer had started: a connection lost while reading it, a streamed list that stalled. */
  midway?: boolean;
  /** A delete refused because it would take the ratings of messages it keeps: those chats. */
  ratedChats?: readonly RatedChat[];
}

/** What a call does, in words: a caller can say `reading variables` without naming a route. */
export type Operation = 'read' | 'create' | 'update' | 'delete' | 'import';

/** The records a path is about (its first segment), in words. */
const RESOURCE_WORDS: Record<string, string> = {
  variables: 'variables',
  assistants: 'assistants',
  feedback: 'feedback',
  chatmessage: 'chat messages',
  'upsert-history': 'upsert history',
  chatflows: 'chatflows',
  ping: 'its status',
  version: 'its version',
};

/** The records and the operation of a call (`GET /variables`: variables, read). */
function callOf(method: string, apiPath: string): { resource: string; operation: Operation } {
  const segments = apiPath.split('?')[0]!.split('/').filter(Boolean);
  const first = segments[0] ?? '';
  const resource = RESOURCE_WORDS[first] ?? (decodeURIComponent(first) || 'the API root');
  const verb = method.toUpperCase();
  let operation: Operation;
  if (verb === 'GET' || verb === 'HEAD') operation = 'read';
  else if (verb === 'DELETE' || (verb === 'PATCH' && first === 'upsert-history')) operation = 'delete';
  else if (verb === 'PUT' || verb === 'PATCH') operation = 'update';
  // Our service's ingest routes: /x/import, and POST /chatmessage|upsert-history/<chatflow>.
  else if (segments[segments.length - 1] === 'import' || (segments.length === 2 && (first === 'chatmessage' || first === 'upsert-history'))) operation = 'import';
  else operation = 'create';
  return { resource, operation };
}

/**
 * The one error of the client. `message` is whole for a library's log (it names the route); the
 * parts (`kind`, `status`, `resource`, `operation`, `serverMessage`, `reason`...) let a caller
 * say it in its own words, as the CLI does with the command the user typed.
 */
export class ChatflowError extends Error {
  override readonly name = 'ChatflowError';
  readonly kind: ChatflowErrorKind;
  readonly status?: number;
  readonly method?: string;
  readonly path?: string;
  readonly code?: string;
  readonly serverMessage?: string;
  readonly server?: string;
  readonly reason?: string;
  readonly timeoutMs?: number;
  readonly midway?: boolean;
  readonly ratedChats?: readonly RatedChat[];
  /** The records of the failed call, in words (`chat messages`), when it had a route. */
  readonly resource?: string;
  readonly operation?: Operation;

  constructor(kind: ChatflowErrorKind, message: string, opts: ChatflowErrorOptions = {}) {
    super(message);
    this.kind = kind;
    for (const key of ['status', 'method', 'path', 'code', 'serverMessage', 'server', 'reason', 'timeoutMs', 'midway', 'ratedChats'] as const) {
      if (opts[key] !== undefined) Object.assign(this, { [key]: opts[key] });
    }
    if (opts.method !== undefined && opts.path !== undefined) Object.assign(this, callOf(opts.method, opts.path));
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

/** The `reason` of an error answer that said nothing but its status. */
export const UNANSWERED = 'no message';

/** Maps an error answer of the server to a ChatflowError (see the table in index.ts). */
export function httpError({ status, contentType, text, method, path, sentKey }: HttpErrorInput): ChatflowError {
  const msg = serverMessage(contentType, text);
  const opts = { method, path, ...(msg ? { serverMessage: msg } : {}) };
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
  return new ChatflowError('http', msg || fallback, { ...opts, status, ...(msg ? {} : { reason: UNANSWERED }) });
}
