// Names wherever an id is taken: a variable by its name, an assistant by `details.name`, a chatflow
// by its name on servers that keep names (Flowise). One rule for all: an id is itself; else a name
// exactly one record has; a name several records share is a usage error naming their ids (exit 2);
// nothing of that id or name is not found (exit 3).
import { ChatflowError, type Assistant, type ChatflowClient, type Variable } from '../client/index.js';
import { EXIT, UsageError, UserError } from './core/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids of variables, assistants and Flowise's chatflows are UUIDs: one is taken as an id, unlooked-up. */
export const isId = (text: string): boolean => UUID.test(text);

/** What a name is looked up among: each record's id and name. */
export interface Named<T> {
  noun: string;
  all(client: ChatflowClient): AsyncIterable<T>;
  id(t: T): string;
  name(t: T): string | undefined;
}

export const VARIABLES: Named<Variable> = {
  noun: 'variable',
  all: (c) => c.variables.stream(),
  id: (v) => v.id,
  name: (v) => v.name,
};

export const ASSISTANTS: Named<Assistant> = {
  noun: 'assistant',
  all: (c) => c.assistants.stream(),
  id: (a) => a.id,
  name: (a) => (typeof a.details?.name === 'string' ? a.details.name : undefined),
};

/** The record `idOrName` means among `records` (the one rule above). */
export function pick<T>(kind: Named<T>, records: Iterable<T>, idOrName: string): T {
  const matches: T[] = [];
  for (const r of records) {
    if (kind.id(r) === idOrName) return r;
    if (kind.name(r) === idOrName) matches.push(r);
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UsageError(`${matches.length} ${kind.noun}s are named ${idOrName}: give the id (${matches.map((m) => kind.id(m)).join(', ')})`);
  }
  throw new UserError(`${kind.noun} ${idOrName} not found`, EXIT.notFound);
}

/** Every record of a kind, once, for looking up several names. */
export async function records<T>(kind: Named<T>, client: ChatflowClient): Promise<T[]> {
  const out: T[] = [];
  for await (const r of kind.all(client)) out.push(r);
  return out;
}

/**
 * The id `idOrName` means: a UUID as it is (a missing record is the server's 404), else the id of
 * the one record with that name, out of `all` (when several names are looked up) or the server's.
 */
export async function idOf<T>(kind: Named<T>, client: ChatflowClient, idOrName: string, all?: T[]): Promise<string> {
  if (isId(idOrName)) return idOrName;
  return kind.id(pick(kind, all ?? (await records(kind, client)), idOrName));
}

/** One record by id or name. */
export async function find<T>(kind: Named<T>, client: ChatflowClient, idOrName: string): Promise<T> {
  return pick(kind, await records(kind, client), idOrName);
}


/**
 * The chatflow id `text` means. A UUID is an id (no request). On our service too, with no request:
 * its chatflows are free-text ids that exist once a message names them, each named by its id
 * (the kind of server is known there, or asked once and remembered, and the command needs it
 * anyway). Otherwise (Flowise) the server's chatflows are asked: an id among them, else a name
 * exactly one has. A text that is neither goes as it is: a server without `GET /chatflows` cannot
 * tell names anyway.
 */
export async function chatflowId(client: ChatflowClient, text: string): Promise<string> {
  if (isId(text) || (await client.server()) === 'chatflow') return text;
  let flows;
  try {
    flows = await client.chatflows.list();
  } catch (err) {
    if (err instanceof ChatflowError && (err.kind === 'unsupported' || err.status === 404)) return text;
    throw err;
  }
  if (flows.some((f) => f.id === text)) return text;
  const named = flows.filter((f) => f.name === text);
  if (named.length > 1) throw new UsageError(`${named.length} chatflows are named ${text}: give the id (${named.map((f) => f.id).join(', ')})`);
  return named[0]?.id ?? text;
}
