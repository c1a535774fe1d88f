// A chatflow as it travels between servers and lives in git (issue 33): the portable form of a
// definition, its file (`<name>.json`: pretty, keys sorted, byte-identical for an unchanged flow)
// and its differences. What only one server means is left out: timestamps, the workspace, the
// API-key binding. A credential is a server's id wherever a flow names one (a node's `credential`,
// `FLOWISE_CREDENTIAL_ID` in its inputs, a setting's `credentialId`); the portable form holds
// `{"name": …, "kind": …}` there instead, and a target's id of that name and kind goes back in.
import { CHATFLOW_SETTINGS, CHATFLOW_TYPES } from '../../schema/enums.js';
import type { ChatflowDefinition, Credential } from '../../client/index.js';
import { isObject as isPlainObject, parseObject } from '../base/json-object.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Setting = (typeof CHATFLOW_SETTINGS)[number];
export type ChatflowType = (typeof CHATFLOW_TYPES)[number];

/** A chatflow's file, parsed: the settings as JSON values, flowData an object. */
export interface Portable {
  name: string;
  type: ChatflowType;
  category?: string;
  deployed?: boolean;
  isPublic?: boolean;
  flowData: Json;
  settings: Partial<Record<Setting, Json>>;
  /** The id on the server it came from (files keep it: `import --keep-ids`). */
  id?: string;
}

/** A credential as files name it. */
export interface CredentialRef {
  name: string;
  kind: string;
}

/** Where a flow holds a credential's id. */
const CREDENTIAL_KEYS = new Set(['credential', 'FLOWISE_CREDENTIAL_ID', 'credentialId']);

const isObject = isPlainObject<Json>;
export const isRef = (v: unknown): v is CredentialRef =>
  isObject(v) && Object.keys(v).length === 2 && typeof v.name === 'string' && typeof v.kind === 'string';
export const refText = (r: CredentialRef) => `${r.kind} "${r.name}"`;

/** Every value under a credential key, replaced by `swap` (answering undefined keeps it). */
function mapCredentials(v: Json, swap: (value: Json) => Json | undefined): Json {
  if (Array.isArray(v)) return v.map((x) => mapCredentials(x, swap));
  if (!isObject(v)) return v;
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(v)) {
    const swapped = CREDENTIAL_KEYS.has(k) ? swap(x) : undefined;
    out[k] = swapped === undefined ? mapCredentials(x, swap) : swapped;
  }
  return out;
}

/** JSON text as a value; text that is not JSON stays text. */
function parsed(text: string | null | undefined): Json | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** A credential id as its reference; undefined for any other value (an id not among `credentials` is said to `unknown`). */
function toReference(credentials: readonly Credential[], unknown: (id: string) => void): (value: Json) => Json | undefined {
  const byId = new Map(credentials.map((c) => [c.id, c]));
  return (value) => {
    if (typeof value !== 'string' || value === '') return undefined;
    const c = byId.get(value);
    if (!c) unknown(value);
    return c ? { name: c.name, kind: c.credentialName } : undefined;
  };
}

/**
 * A server's definition as files hold it. `credentials` are the server's (undefined: a server
 * that keeps none, whose flows hold references already); an id not among them stays an id, and
 * `unknown` hears of it.
 */
export function toPortable(def: ChatflowDefinition, credentials: readonly Credential[] | undefined, unknown: (id: string) => void = () => {}): Portable {
  const swap = credentials ? toReference(credentials, unknown) : () => undefined;
  const settings: Portable['settings'] = {};
  for (const key of CHATFLOW_SETTINGS) {
    const v = parsed(def[key]);
    if (v !== undefined) settings[key] = mapCredentials(v, swap);
  }
  return {
    name: def.name,
    type: (def.type ?? 'CHATFLOW') as ChatflowType,
    ...(def.category ? { category: def.category } : {}),
    ...(typeof def.deployed === 'boolean' ? { deployed: def.deployed } : {}),
    ...(typeof def.isPublic === 'boolean' ? { isPublic: def.isPublic } : {}),
    flowData: mapCredentials(parsed(def.flowData) ?? {}, swap),
    settings,
    id: def.id,
  };
}

/**
 * A definition as the server lists it, its credential ids (in flowData and the settings) turned
 * into references: how `chatflow export` writes a chatflow. A text without any is left as it is.
 */
export function withReferences(def: ChatflowDefinition, credentials: readonly Credential[], unknown: (id: string) => void): ChatflowDefinition {
  const ref = toReference(credentials, unknown);
  const out: Record<string, unknown> = { ...def };
  for (const key of ['flowData', ...CHATFLOW_SETTINGS] as const) {
    const value = parsed(def[key]);
    if (value === undefined || typeof value === 'string') continue;
    let swapped = false;
    const mapped = mapCredentials(value, (v) => {
      const r = ref(v);
      swapped ||= r !== undefined;
      return r;
    });
    if (swapped) out[key] = JSON.stringify(mapped);
  }
  return out as ChatflowDefinition;
}

/** The references a chatflow holds. */
export function refsOf(p: Portable): CredentialRef[] {
  const found = new Map<string, CredentialRef>();
  const walk = (v: Json) => {
    mapCredentials(v, (x) => {
      if (isRef(x)) found.set(refText(x), x);
      return undefined;
    });
  };
  walk(p.flowData);
  for (const v of Object.values(p.settings)) walk(v as Json);
  return [...found.values()];
}

/**
 * The target's credential of each reference's name and kind; `undefined` credentials: the target
 * keeps none (references stay). A name and kind that several credentials share matches none.
 */
export function credentialLookup(credentials: readonly Credential[] | undefined) {
  const ids = new Map<string, string[]>();
  for (const c of credentials ?? []) {
    const key = `${c.credentialName}\0${c.name}`;
    ids.set(key, [...(ids.get(key) ?? []), c.id]);
  }
  const match = (r: CredentialRef) => ids.get(`${r.kind}\0${r.name}`) ?? [];
  return {
    /** The references the target has not exactly one credential for, with how many it has. */
    unmatched: (refs: readonly CredentialRef[]) => (credentials ? refs.filter((r) => match(r).length !== 1).map((ref) => ({ ref, found: match(ref).length })) : []),
    resolve: (v: Json): Json => (credentials ? mapCredentials(v, (x) => (isRef(x) ? (match(x)[0] ?? null) : undefined)) : v),
  };
}

/** The fields of a create or update, as a server takes them (JSON text), credentials resolved for the target. */
export function toBody(p: Portable, resolve: (v: Json) => Json) {
  const settings = Object.fromEntries(
    CHATFLOW_SETTINGS.map((k) => {
      const v = p.settings[k];
      return [k, v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(resolve(v))];
    }),
  ) as Record<Setting, string | null>;
  return {
    name: p.name,
    type: p.type,
    flowData: JSON.stringify(resolve(p.flowData)),
    category: p.category ?? null,
    deployed: p.deployed ?? null,
    isPublic: p.isPublic ?? null,
    ...settings,
  };
}

// ---------------------------------------------------------------- files

/** A value with its objects' keys sorted: equal content, equal text. */
function sorted(v: Json): Json {
  if (Array.isArray(v)) return v.map(sorted);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sorted(v[k]!)]),
  );
}

/** The file's text: its fields in one order, objects' keys sorted, two spaces, a final newline. */
export function fileText(p: Portable): string {
  const doc: Record<string, Json> = { name: p.name, type: p.type };
  if (p.category !== undefined) doc.category = p.category;
  if (p.deployed !== undefined) doc.deployed = p.deployed;
  if (p.isPublic !== undefined) doc.isPublic = p.isPublic;
  doc.flowData = sorted(p.flowData);
  for (const k of CHATFLOW_SETTINGS) if (p.settings[k] !== undefined) doc[k] = sorted(p.settings[k]!);
  if (p.id !== undefined) doc.id = p.id;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * A file's chatflow, or why it is none. A file of Flowise's own "Export" ({nodes, edges}, no name)
 * is a chatflow named `nameless` (its file's name).
 */
export function parseFile(text: string, nameless?: string): Portable | string {
  const given = parseObject<Json>(text);
  if (typeof given === 'string') return given;
  const ui = nameless !== undefined && given.name === undefined && given.flowData === undefined && Array.isArray(given.nodes);
  const doc: Record<string, Json> = ui ? { name: nameless, flowData: given } : given;
  if (typeof doc.name !== 'string' || doc.name.trim() === '') return '"name" must be a non-empty string';
  const type = doc.type ?? 'CHATFLOW';
  if (!(CHATFLOW_TYPES as readonly unknown[]).includes(type)) return `"type" must be one of ${CHATFLOW_TYPES.join(', ')}`;
  // A file of Flowise's own export holds flowData as text.
  const flowData = typeof doc.flowData === 'string' ? parsed(doc.flowData) : doc.flowData;
  // (Flowise refuses a flow without a nodes array: 500 "nodes is not iterable".)
  if (!isObject(flowData) || !Array.isArray(flowData.nodes)) return '"flowData" must be an object (nodes and edges)';
  for (const k of ['deployed', 'isPublic'] as const) if (doc[k] !== undefined && doc[k] !== null && typeof doc[k] !== 'boolean') return `"${k}" must be true or false`;
  if (doc.category !== undefined && doc.category !== null && typeof doc.category !== 'string') return '"category" must be a string';
  if (doc.id !== undefined && typeof doc.id !== 'string') return '"id" must be a string';
  const settings: Portable['settings'] = {};
  for (const k of CHATFLOW_SETTINGS) {
    const v = typeof doc[k] === 'string' ? parsed(doc[k] as string) : doc[k];
    if (v !== undefined && v !== null) settings[k] = v;
  }
  return {
    name: doc.name,
    type: type as ChatflowType,
    ...(typeof doc.category === 'string' && doc.category ? { category: doc.category } : {}),
    ...(typeof doc.deployed === 'boolean' ? { deployed: doc.deployed } : {}),
    ...(typeof doc.isPublic === 'boolean' ? { isPublic: doc.isPublic } : {}),
    flowData,
    settings,
    ...(typeof doc.id === 'string' ? { id: doc.id } : {}),
  };
}

/**
 * Each chatflow's file name: its name made safe for any file system (no separators, control
 * characters or a leading dot), `.json`; names that several chatflows share (in any case, for
 * case-insensitive file systems) take the start of their id too.
 */
export function fileNames(flows: readonly { id: string; name: string }[]): Map<string, string> {
  const safe = (name: string) =>
    name
      .replace(/[/\\:*?"<>|\p{Cc}]/gu, '_')
      .replace(/^\.+/, '_')
      .trim()
      .slice(0, 200) || '_';
  const count = new Map<string, number>();
  for (const f of flows) count.set(safe(f.name).toLowerCase(), (count.get(safe(f.name).toLowerCase()) ?? 0) + 1);
  return new Map(flows.map((f) => [f.id, count.get(safe(f.name).toLowerCase())! > 1 ? `${safe(f.name)}.${safe(f.id).slice(0, 8)}.json` : `${safe(f.name)}.json`]));
}

// ---------------------------------------------------------------- differences

export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
}

const canonical = (v: unknown): string => JSON.stringify(v === undefined ? null : sorted(v as Json));
const byId = (v: Json): Map<string, Json> | undefined => {
  if (!Array.isArray(v) || !v.every((x) => isObject(x) && typeof x.id === 'string')) return undefined;
  const m = new Map(v.map((x) => [(x as Record<string, Json>).id as string, x]));
  return m.size === v.length ? m : undefined;
};

/** Where two values differ, as paths (arrays of records with ids matched by id: `nodes[llm_0]`). */
function differences(a: Json | undefined, b: Json | undefined, path: string, out: FieldChange[]): void {
  if (canonical(a) === canonical(b)) return;
  if (isObject(a) && isObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) differences(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  const [ia, ib] = [a === undefined ? undefined : byId(a), b === undefined ? undefined : byId(b)];
  if (ia && ib) {
    for (const id of [...new Set([...ia.keys(), ...ib.keys()])]) differences(ia.get(id), ib.get(id), `${path}[${id}]`, out);
    return;
  }
  out.push({ field: path, from: a, to: b });
}

/** What a target (`from`) would change to be the source (`to`); ids never count. */
export function changes(from: Portable, to: Portable): FieldChange[] {
  const out: FieldChange[] = [];
  for (const k of ['type', 'category', 'deployed', 'isPublic'] as const) differences(from[k] as Json, to[k] as Json, k, out);
  differences(from.flowData, to.flowData, 'flowData', out);
  for (const k of CHATFLOW_SETTINGS) differences(from.settings[k], to.settings[k], k, out);
  return out;
}

/** What a create sets, briefly. */
export function summaryOf(p: Portable): FieldChange[] {
  const f = p.flowData as Record<string, Json>;
  const n = (v: Json | undefined) => (Array.isArray(v) ? v.length : 0);
  return [
    { field: 'type', to: p.type },
    { field: 'nodes', to: n(f.nodes) },
    { field: 'edges', to: n(f.edges) },
  ];
}
