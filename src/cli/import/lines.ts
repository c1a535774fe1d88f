// A line of an export file (../export/lines.ts) as `chatflow import` reads it: the record it
// holds, checked, and its \`data\` as the JSON text to send; or why it cannot be imported. Pure:
// the import's reading thread (reader-thread.ts) runs it on every line, the command on none.
import { MESSAGE_ROLES, RATINGS } from '../../schema/enums.js';
import { isObject, parseObject } from '../base/json-object.js';
import { PER_CHATFLOW, RESOURCES, RESOURCE_OF_TAG, type Resource } from '../export/lines.js';

export type Data = Record<string, unknown>;

interface Line {
  resource: Resource;
  chatflowid: string | undefined;
  data: Data;
  /** `data`'s JSON as the line holds it, when it can be sent as it is (see dataText). */
  dataText?: string;
}

/**
 * What a line is: nothing (blank), a bad line (why), or a record: its resource and chatflow, its
 * id, its name where records are one per name, the JSON text to send (undefined when it is
 * nested too deep to be written again) and the line's bytes with its newline.
 */
export type LineRecord<Json = string> =
  | null
  | { bad: string }
  | { resource: Resource; chatflowid: string | undefined; id: string; name?: string; json: Json | undefined; bytes: number };

export const TOO_DEEP = 'nested too deep to be sent';

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';
const TAG_LIST = 'chatflow, variable, assistant, message, feedback or upsert-history';

/**
 * The text of `data` in a line as an export writes it (`data` its last key, nothing after it but
 * the closing brace), so that the record is sent as the line holds it instead of being written
 * again (JSON.stringify took as long as parsing the line). Undefined for any other line: one whose
 * text holds `"data"` anywhere else (a second key of that name: JSON keeps the last) or a `\u`
 * escape (which could spell one).
 */
function dataText(text: string, value: Data): string | undefined {
  const keys = Object.keys(value);
  if (keys[keys.length - 1] !== 'data' || !text.endsWith('}')) return undefined;
  const head = headOf(keys, value);
  if (!text.startsWith(head) || text.lastIndexOf('"data"') !== head.length - 7 || text.includes('\\u')) return undefined;
  return text.slice(head.length, -1);
}

/** The last line's head (its keys before `data`, and their values), made again only when they change: most lines share it. */
let lastHead: { keys: string[]; values: unknown[]; text: string } | undefined;
function headOf(keys: string[], value: Data): string {
  const n = keys.length - 1;
  const last = lastHead;
  if (last && last.keys.length === n && keys.every((k, i) => i === n || (k === last.keys[i] && value[k] === last.values[i]))) return last.text;
  let text = '{';
  for (let i = 0; i < n; i++) text += `${JSON.stringify(keys[i])}:${JSON.stringify(value[keys[i]!])},`;
  text += '"data":';
  lastHead = { keys: keys.slice(0, n), values: keys.slice(0, n).map((k) => value[k]), text };
  return text;
}

/** The record a line holds, or why it cannot be imported. */
function parseLine(text: string): Line | string {
  const value = parseObject(text);
  if (typeof value === 'string') return value;
  const tag = value.resource;
  const resource = typeof tag === 'string' ? (RESOURCE_OF_TAG.get(tag) ?? (RESOURCES.find((r) => r === tag))) : undefined;
  if (!resource) return tag === undefined ? `no "resource" (one of ${TAG_LIST})` : `unknown resource ${JSON.stringify(tag)}: expected ${TAG_LIST}`;
  const data = value.data;
  if (!isObject(data)) return '"data" must be an object';
  if (!isText(data.id)) return 'data.id is missing: records are imported with their ids';
  let chatflowid: string | undefined;
  if (PER_CHATFLOW.has(resource)) {
    const given = value.chatflowid ?? data.chatflowid;
    if (given !== undefined && !isText(given)) return '"chatflowid" must be a non-empty string';
    chatflowid = given;
    if (chatflowid === undefined && resource !== 'feedback') return `a ${tag} line needs "chatflowid"`;
  }
  switch (resource) {
    case 'chatflows':
      if (!isText(data.name)) return 'data.name must be a non-empty string';
      if (!isText(data.flowData)) return 'data.flowData must be JSON text (as the server lists it)';
      break;
    case 'variables':
      if (!isText(data.name)) return 'data.name must be a non-empty string';
      break;
    case 'assistants':
      if (!isObject(data.details) || !isText(data.details.name)) return 'data.details must be an object with a name';
      break;
    case 'messages':
      if (!(MESSAGE_ROLES as readonly unknown[]).includes(data.role)) return `data.role must be ${MESSAGE_ROLES.join(' or ')}`;
      break;
    case 'feedback':
      if (!isText(data.messageId)) return 'data.messageId must be a non-empty string';
      if (!(RATINGS as readonly unknown[]).includes(data.rating)) return `data.rating must be ${RATINGS.join(' or ')}`;
      break;
    case 'upsert-history':
      break;
  }
  return { resource, chatflowid, data, dataText: dataText(text, value) };
}

export type NamedResource = 'variables' | 'assistants';
export const isNamed = (resource: Resource): resource is NamedResource => resource === 'variables' || resource === 'assistants';
export const NOUN: Record<NamedResource, string> = { variables: 'variable', assistants: 'assistant' };

export function nameOf(resource: NamedResource, data: Data): string | undefined {
  if (resource === 'variables') return typeof data.name === 'string' ? data.name : undefined;
  let details = data.details;
  if (typeof details === 'string') {
    try {
      details = JSON.parse(details) as unknown;
    } catch {
      return undefined;
    }
  }
  const name = isObject(details) ? details.name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** The record `text` holds (one line of the file, without its newline), or why it holds none. */
function readLine(text: string): LineRecord {
  if (text.trim() === '') return null;
  const parsed = parseLine(text);
  if (typeof parsed === 'string') return { bad: parsed };
  const { resource, chatflowid, data } = parsed;
  // A record goes on as the JSON text the line holds (or JSON.stringify of it), never held
  // as the parsed object.
  let json: string | undefined;
  try {
    json = parsed.dataText ?? JSON.stringify(data);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
  const name = isNamed(resource) ? nameOf(resource, data) : undefined;
  return { resource, chatflowid, id: String(data.id), ...(name === undefined ? {} : { name }), json, bytes: Buffer.byteLength(text) + 1 };
}

/**
 * The records of an input's lines, given its chunks one by one (`push`) and then its end (`end`),
 * whichever thread reads them (reader.ts). A newline byte never occurs inside a UTF-8 sequence:
 * a chunk's whole lines decode as one text, split at its newlines (a decoding a line took some
 * 2 µs longer a line); what follows the last newline waits for the next chunk.
 */
export class LineReader {
  private rest: Buffer | undefined;

  push(chunk: Buffer): LineRecord[] {
    const buf: Buffer = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    const end = buf.lastIndexOf(10) + 1;
    this.rest = end < buf.length ? buf.subarray(end) : undefined;
    if (end === 0) return [];
    const lines = buf.toString('utf8', 0, end - 1).split('\n');
    return lines.map((line) => readLine(line.endsWith('\r') ? line.slice(0, -1) : line));
  }

  /** The last line, when the input does not end with a newline. */
  end(): LineRecord[] {
    const rest = this.rest;
    this.rest = undefined;
    return rest ? [readLine(rest.toString('utf8'))] : [];
  }
}

/**
 * A chunk's records as the reading thread hands them over: a few arrays instead of an object a
 * line (which the command's thread would rebuild, one by one), the records' JSON as UTF-8 bytes
 * one after the other (which the command only copies into its requests). `kind` of each line:
 * BLANK, BAD (its why in `bad`, in order), RECORD, or TOO_DEEP_RECORD (no JSON); `flow` indexes
 * `flows` (0: none); `id` and `name` only where records are one per name (`named`, in order).
 */
export interface PackedRecords {
  kind: Uint8Array;
  resource: Uint8Array;
  flow: Uint16Array;
  size: Uint32Array;
  /** Where each record's JSON ends in `json` (it starts where the one before ends). */
  end: Uint32Array;
  json: Uint8Array;
  flows: (string | undefined)[];
  bad: string[];
  named: { id: string; name?: string }[];
}

const BLANK = 0;
const BAD = 1;
const RECORD = 2;
const TOO_DEEP_RECORD = 3;

export function packRecords(records: LineRecord[]): PackedRecords {
  const n = records.length;
  const packed: PackedRecords = {
    kind: new Uint8Array(n), resource: new Uint8Array(n), flow: new Uint16Array(n), size: new Uint32Array(n), end: new Uint32Array(n),
    json: new Uint8Array(0), flows: [undefined], bad: [], named: [],
  };
  const texts: string[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    if (r === null) packed.kind[i] = BLANK;
    else if ('bad' in r) {
      packed.kind[i] = BAD;
      packed.bad.push(r.bad);
    } else {
      packed.kind[i] = r.json === undefined ? TOO_DEEP_RECORD : RECORD;
      packed.resource[i] = RESOURCES.indexOf(r.resource);
      let flow = packed.flows.indexOf(r.chatflowid);
      if (flow < 0) flow = packed.flows.push(r.chatflowid) - 1;
      packed.flow[i] = flow;
      packed.size[i] = r.bytes;
      if (r.json !== undefined) {
        texts.push(r.json);
        at += Buffer.byteLength(r.json);
      }
      if (isNamed(r.resource)) packed.named.push({ id: r.id, ...(r.name === undefined ? {} : { name: r.name }) });
    }
    packed.end[i] = at;
  }
  // (Memory of its own, to be handed to another thread: never a slice of Buffer's shared pool.)
  packed.json = new Uint8Array(at);
  Buffer.from(packed.json.buffer).write(texts.join(''));
  return packed;
}

/** The records `packRecords` packed, one by one, their JSON as views of its bytes. */
export function* unpackRecords(packed: PackedRecords): Generator<LineRecord<Uint8Array>> {
  let bad = 0;
  let named = 0;
  for (let i = 0; i < packed.kind.length; i++) {
    const kind = packed.kind[i];
    if (kind === BLANK) yield null;
    else if (kind === BAD) yield { bad: packed.bad[bad++]! };
    else {
      const resource = RESOURCES[packed.resource[i]!]!;
      const { id, name } = isNamed(resource) ? packed.named[named++]! : { id: '', name: undefined };
      yield {
        resource,
        chatflowid: packed.flows[packed.flow[i]!],
        id,
        ...(name === undefined ? {} : { name }),
        json: kind === RECORD ? packed.json.subarray(i === 0 ? 0 : packed.end[i - 1], packed.end[i]) : undefined,
        bytes: packed.size[i]!,
      };
    }
  }
}
