// Real HTTP requests with global fetch, and the assertions every error answer shares.
import { expect } from 'vitest';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: T;
  text: string;
}

/**
 * One request. An object/array body is sent as JSON; a string body is sent as it is (to send
 * malformed JSON), with content-type application/json unless the headers name another.
 */
export async function call<T = any>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  const sent: Record<string, string> = { ...headers };
  const init: RequestInit = { method, headers: sent };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    if (!Object.keys(sent).some((h) => h.toLowerCase() === 'content-type')) sent['content-type'] = 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  const isJson = /json/.test(res.headers.get('content-type') ?? '');
  return { status: res.status, headers: res.headers, body: (isJson && text !== '' ? JSON.parse(text) : text) as T, text };
}

/** A query string; arrays repeat the key (chatType=A&chatType=B). */
export function qs(params: Record<string, string | number | boolean | readonly string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) q.append(k, String(item));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The answer is the JSON error body `{statusCode, success:false, message}` with that status. */
export function expectError(reply: Reply, status: number, message?: string | RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(reply.body).toEqual({ statusCode: status, success: false, message: expect.any(String) });
  if (typeof message === 'string') expect(reply.body.message).toContain(message);
  else if (message) expect(reply.body.message).toMatch(message);
}

/** The answer is a 200 JSON answer; returns its body. */
export function ok<T = any>(reply: Reply<T>): T {
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}
