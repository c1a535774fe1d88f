// What a route module provides for each operation of the route table. Free of any HTTP
// framework: fastify (app.ts) and the in-process dispatcher (in-process.ts) both run them.
import type { RouteBody, RouteName, RouteParams, RouteQuery } from '../../schema/routes.js';
import type { Store } from '../store/types.js';

export interface RouteInput<N extends RouteName> {
  params: RouteParams<N>;
  query: RouteQuery<N>;
  body: RouteBody<N>;
  store: Store;
}

/** An answer that is plain text, not JSON (ping's). */
export class TextAnswer {
  constructor(readonly text: string) {}
}

export interface RouteHandler<N extends RouteName> {
  /** Answers the body; for list routes a Listing that is streamed. */
  handle(input: RouteInput<N>): Promise<unknown> | unknown;
  /** Runs before validation, on the parsed body (e.g. to accept a JSON string where an object is expected). */
  preValidation?: (request: { body: unknown }) => void;
}

export type RouteHandlers = { [N in RouteName]: RouteHandler<N> };
export type HandlersFor<N extends RouteName> = { [K in N]: RouteHandler<K> };
