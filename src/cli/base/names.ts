// Names and short ids wherever an id is taken: a variable by its name, an assistant by
// `details.name`, a chatflow by its name on servers that keep names (Flowise), and any of them, a
// feedback or an upsert history record by the start of its id, as tables show ids (as git and
// docker take them). One rule for all: an id is itself; else a name exactly one record has; else
// the one UUID id that starts with it (4 characters at least: tables shorten only UUIDs);
// several are a usage error naming them (exit 2); nothing of that id or name is not found (exit 3).
import { ChatflowError, type Assistant, type Chatflow, type ChatflowClient, type ChatMessage, type Feedback, type UpsertHistory, type Variable } from '../../client/index.js';
import { EXIT, UsageError, UserError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids of variables, assistants and Flowise's chatflows are UUIDs: one is taken as an id, unlooked-up. */
export const isId = (text: string): boolean => UUID.test(text);
/** The start of a UUID, as tables show it: 4 characters or more (only UUIDs are shortened, only they are matched so). */
const PREFIX = /^[0-9a-f][0-9a-f-]{3,35}$/i;
const startsWith = (id: string, prefix: string) => id.toLowerCase().startsWith(prefix.toLowerCase());

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

/** `3f2a…`: the record's id and its name, for a list of candidates. */
function candidates<T>(kind: Named<T>, matches: T[]): string {
  return matches.map((m) => (kind.name(m) ? `${kind.id(m)} ${kind.name(m)}` : kind.id(m))).join(', ');
}

/** The record `idOrName` means among `records` (the one rule above). */
export function pick<T>(kind: Named<T>, records: Iterable<T>, idOrName: string): T {
  const named: T[] = [];
  const prefixed: T[] = [];
  const prefix = PREFIX.test(idOrName);
  for (const r of records) {
    if (kind.id(r) === idOrName) return r;
    if (kind.name(r) === idOrName) named.push(r);
    else if (prefix && isId(kind.id(r)) && startsWith(kind.id(r), idOrName)) prefixed.push(r);
  }
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new UsageError(`${named.length} ${kind.noun}s are named ${idOrName}: give the id (${named.map((m) => kind.id(m)).join(', ')})`);
  }
  if (prefixed.length === 1) return prefixed[0]!;
  if (prefixed.length > 1) throw new UsageError(`${idOrName} starts the ids of ${prefixed.length} ${kind.noun}s: give more of it (${candidates(kind, prefixed)})`);
  throw new UserError(`${kind.noun} ${idOrName} not found`, EXIT.notFound);
}

/** Every record of a kind, once, for looking up several names. */
export async function records<T>(kind: Named<T>, client: ChatflowClient): Promise<T[]> {
  const out: T[] = [];
  for await (const r of kind.all(client)) out.push(r);
  return out;
}

/**
 * The id `idOrName` means: out of `all` (a whole list, taken once for several arguments: an id
 * not in it is not found), else a UUID as it is (a missing record is the server's 404) and
 * anything else looked up in the server's list.
 */
export async function idOf<T>(kind: Named<T>, client: ChatflowClient, idOrName: string, all?: T[]): Promise<string> {
  if (isId(idOrName) && !all) return idOrName;
  return kind.id(pick(kind, all ?? (await records(kind, client)), idOrName));
}

/**
 * The id `text` means for a kind without names (feedback, upsert history): a UUID as it is, the
 * start of one looked up; anything else is a usage error naming `what` (`<id>`, `--message-id`).
 */
export async function idFrom<T>(kind: Named<T>, client: ChatflowClient, text: string, what: string, all?: T[]): Promise<string> {
  if (isId(text)) return text;
  if (!PREFIX.test(text)) throw new UsageError(`invalid ${what} "${text}": give a ${kind.noun} id, or 4 or more of its first characters`, { scoped: true });
  return kind.id(pick(kind, all ?? (await records(kind, client)), text));
}

/** Feedback of every chatflow (feedback is listed a chatflow at a time). */
export const FEEDBACK: Named<Feedback> = {
  noun: 'feedback',
  all: async function* (c) {
    for (const flow of await c.chatflows.list()) yield* c.feedback.stream(flow.id);
  },
  id: (f) => f.id,
  name: () => undefined,
};

/** Messages of one chatflow (the start of a message id is looked up there only). */
export const messagesOf = (chatflowId: string): Named<ChatMessage> => ({
  noun: 'message',
  all: (c) => c.messages.stream(chatflowId),
  id: (m) => m.id,
  name: () => undefined,
});

/** Upsert history records, of one chatflow or all. */
export const upsertHistoryOf = (chatflowId?: string): Named<UpsertHistory> => ({
  noun: 'upsert history record',
  all: (c) => c.upsertHistory.stream(chatflowId),
  id: (u) => u.id,
  name: () => undefined,
});

/** One record by id or name. */
export async function find<T>(kind: Named<T>, client: ChatflowClient, idOrName: string): Promise<T> {
  return pick(kind, await records(kind, client), idOrName);
}


/** The server's chatflows; undefined where it lists none (no `GET /chatflows`). */
async function listedChatflows(client: ChatflowClient): Promise<Chatflow[] | undefined> {
  try {
    return await client.chatflows.list();
  } catch (err) {
    if (err instanceof ChatflowError && (err.kind === 'unsupported' || err.status === 404)) return undefined;
    throw err;
  }
}

/**
 * The chatflow id `text` means. A UUID is an id (no request). On our service too, with no request,
 * unless it may be the start of a UUID: its chatflows are free-text ids that exist once a message
 * names them, each named by its id (the kind of server is known there, or asked once and
 * remembered, and the command needs it anyway). Otherwise the server's chatflows are asked: an id
 * among them, else a name exactly one has, else the one id starting with it. A text that is none
 * goes as it is: a server without `GET /chatflows` cannot tell names anyway.
 */
export async function chatflowId(client: ChatflowClient, text: string): Promise<string> {
  if (isId(text) || ((await client.server()) === 'chatflow' && !PREFIX.test(text))) return text;
  const flows = await listedChatflows(client);
  if (!flows) return text;
  if (flows.some((f) => f.id === text)) return text;
  const named = flows.filter((f) => f.name === text);
  if (named.length > 1) throw new UsageError(`${named.length} chatflows are named ${text}: give the id (${named.map((f) => f.id).join(', ')})`);
  if (named[0]) return named[0].id;
  const prefixed = PREFIX.test(text) ? flows.filter((f) => isId(f.id) && startsWith(f.id, text)) : [];
  if (prefixed.length > 1) throw new UsageError(`${text} starts the ids of ${prefixed.length} chatflows: give more of it (${prefixed.map((f) => (f.name && f.name !== f.id ? `${f.id} ${f.name}` : f.id)).join(', ')})`);
  return prefixed[0]?.id ?? text;
}

/** Edits (insert, delete, replace, swap of neighbours) from `a` to `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Why `text` (what the user typed as a chatflow, already resolved when it was one) lists nothing,
 * when the server can tell: it lists its chatflows and `text` is neither an id nor a name of one.
 * Answers the note to show, else nothing (a server without a list of chatflows cannot tell).
 */
export async function unknownChatflow(client: ChatflowClient, text: string): Promise<string | undefined> {
  const flows = await listedChatflows(client);
  if (!flows) return undefined;
  if (flows.some((f) => f.id === text || f.name === text)) return undefined;
  const words = [...new Set(flows.flatMap((f) => [f.name, f.id]))];
  const near = words
    .map((w) => ({ w, d: distance(text.toLowerCase(), w.toLowerCase()) }))
    .filter(({ w, d }) => d <= Math.max(2, Math.floor(Math.min(w.length, text.length) / 4)))
    .sort((a, b) => a.d - b.d)[0]?.w;
  return `no chatflow ${text} on this server${near ? `; did you mean ${near}?` : ''}`;
}
