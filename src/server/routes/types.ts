// What a route module provides for each operation of the route table.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteBody, RouteName, RouteParams, RouteQuery } from '../../schema/routes.js';
import type { Store } from '../store/types.js';

export interface RouteInput<N extends RouteName> {
  params: RouteParams<N>;
  query: RouteQuery<N>;
  body: RouteBody<N>;
  store: Store;
  reply: FastifyReply;
}

export interface RouteHandler<N extends RouteName> {
  /** Answers the body; for list routes a Listing that the registrar streams. */
  handle(input: RouteInput<N>): Promise<unknown> | unknown;
  /** Runs before validation (e.g. to accept a JSON string where an object is expected). */
  preValidation?: (request: FastifyRequest) => void;
}

export type RouteHandlers = { [N in RouteName]: RouteHandler<N> };
export type HandlersFor<N extends RouteName> = { [K in N]: RouteHandler<K> };
