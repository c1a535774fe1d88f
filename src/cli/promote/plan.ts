// `chatflow variables diff|sync` and `chatflow assistants diff|sync`: promote configuration from one
// environment to another. Records are matched by name (a variable's `name`, an assistant's
// `details.name`); the plan says what would be created, updated, left alone or is only in the
// target; sync applies it after confirmation and reports each change. Nothing is deleted in the
// target without --prune. Values of secret-looking names are masked everywhere they are shown.
import { ChatflowError, type Assistant, type ChatflowClient, type Variable } from '../../client/index.js';
import { resolveConnection, type Target } from '../core/connection.js';
import { UsageError } from '../base/errors.js';
import { validateUrl } from '../base/config.js';
import { MASK, SECRET_NAME } from '../base/secrets.js';

// ---------------------------------------------------------------- the two servers


/** One side of a promotion: a label for the plan, and where its client goes. */
export interface Side extends Target {
  label: string;
}

/** A profile's own URL and key: CHATFLOW_URL / CHATFLOW_API_KEY / CHATFLOW_PROFILE must not turn both sides into one. */
export async function locate(spec: string, flag: string, apiKey: string | undefined): Promise<Side> {
  const s = spec.trim();
  if (!s) throw new UsageError(`${flag} needs a profile name or a URL`);
  if (/^https?:\/\//i.test(s)) {
    const url = validateUrl(s);
    return { label: url, url, ...(apiKey ? { apiKey } : {}) };
  }
  const env = { ...process.env };
  delete env.CHATFLOW_URL;
  delete env.CHATFLOW_API_KEY;
  delete env.CHATFLOW_PROFILE;
  let conn;
  try {
    conn = await resolveConnection({ flagProfile: s }, env);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message.replace('(--profile)', `(${flag})`));
    throw err;
  }
  const key = apiKey ?? conn.apiKey;
  return { label: `profile ${s}${conn.url ? ` (${conn.url})` : ' (embedded database)'}`, ...(conn.url ? { url: conn.url } : {}), ...(key ? { apiKey: key } : {}) };
}

// ---------------------------------------------------------------- plans

export type PlanAction = 'create' | 'update' | 'unchanged' | 'only-in-target' | 'delete' | 'conflict';

export interface Change {
  field: string;
  from?: unknown;
  to?: unknown;
}

/** One line of a plan, as shown and as printed with -o json. */
export interface PlanEntry {
  name: string;
  action: PlanAction;
  changes?: Change[];
  sourceId?: string;
  targetId?: string;
  secret?: true;
  note?: string;
  /** After sync: created, updated, deleted, failed (unchanged and kept entries have none). */
  result?: 'created' | 'updated' | 'deleted' | 'failed';
  error?: string;
}

export interface PlanItem {
  entry: PlanEntry;
  apply?: (target: ChatflowClient) => Promise<void>;
}

/** What diff and sync need to know of a kind of record. */
export interface Kind<T> {
  noun: string;
  nouns: string;
  list(client: ChatflowClient): Promise<T[]>;
  name(t: T): string;
  id(t: T): string;
  /** The fields a create sets, as changes from nothing. */
  created(src: T): Change[];
  /** The differences that matter (empty: unchanged). */
  compare(src: T, dst: T): Change[];
  create(client: ChatflowClient, src: T): Promise<void>;
  update(client: ChatflowClient, src: T, dst: T): Promise<void>;
  remove(client: ChatflowClient, dst: T): Promise<void>;
  secret?(t: T): boolean;
  /** A changed field as an applied update names it (default: as it is). */
  brief?(field: string): string;
}

function groupByName<T>(kind: Kind<T>, items: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const n = kind.name(t);
    const list = out.get(n);
    if (list) list.push(t);
    else out.set(n, [t]);
  }
  return out;
}

export function buildPlan<T>(kind: Kind<T>, source: T[], target: T[], prune: boolean): PlanItem[] {
  const src = groupByName(kind, source);
  const dst = groupByName(kind, target);
  const items: PlanItem[] = [];
  for (const [name, srcs] of src) {
    const dsts = dst.get(name) ?? [];
    const s = srcs[0]!;
    const secret = kind.secret?.(s) ? ({ secret: true } as const) : {};
    if (srcs.length > 1 || dsts.length > 1) {
      const where = srcs.length > 1 ? `${srcs.length} in the source` : `${dsts.length} in the target`;
      items.push({ entry: { name, action: 'conflict', ...secret, note: `${where} have this name; match them by hand` } });
      continue;
    }
    const d = dsts[0];
    if (!d) {
      items.push({ entry: { name, action: 'create', changes: kind.created(s), sourceId: kind.id(s), ...secret }, apply: (c) => kind.create(c, s) });
      continue;
    }
    const changes = kind.compare(s, d);
    const ids = { sourceId: kind.id(s), targetId: kind.id(d) };
    if (changes.length === 0) items.push({ entry: { name, action: 'unchanged', ...ids, ...secret } });
    else items.push({ entry: { name, action: 'update', changes, ...ids, ...secret }, apply: (c) => kind.update(c, s, d) });
  }
  for (const [name, dsts] of dst) {
    if (src.has(name)) continue;
    for (const d of dsts) {
      const secret = kind.secret?.(d) ? ({ secret: true } as const) : {};
      items.push(
        prune
          ? { entry: { name, action: 'delete', targetId: kind.id(d), ...secret }, apply: (c) => kind.remove(c, d) }
          : { entry: { name, action: 'only-in-target', targetId: kind.id(d), ...secret, note: 'kept (--prune deletes it)' } },
      );
    }
  }
  const rank: Record<PlanAction, number> = { create: 0, update: 1, delete: 2, conflict: 3, 'only-in-target': 4, unchanged: 5 };
  return items.sort((a, b) => rank[a.entry.action] - rank[b.entry.action] || a.entry.name.localeCompare(b.entry.name));
}

const PAST: Record<string, PlanEntry['result']> = { create: 'created', update: 'updated', delete: 'deleted' };

/**
 * Applies a plan's pending items to the target in order, setting each entry's result (and error,
 * in `errorText`'s words); one failing does not stop the rest. `done` hears of each entry once it
 * is applied or has failed. Answers how many were applied and the first failure.
 */
export async function applyPlan(
  pending: PlanItem[],
  target: ChatflowClient,
  errorText: (err: unknown) => string,
  done: (entry: PlanEntry) => void,
): Promise<{ applied: number; failed?: unknown }> {
  let failed: unknown;
  let applied = 0;
  for (const item of pending) {
    const e = item.entry;
    try {
      await item.apply!(target);
      e.result = PAST[e.action];
      applied++;
    } catch (err) {
      failed ??= err;
      e.result = 'failed';
      e.error = errorText(err);
    }
    done(e);
  }
  return { applied, failed };
}

// ---------------------------------------------------------------- variables and assistants

/**
 * Creates a record under the source's id where the target takes one (our service's import route;
 * Flowise has none and makes its own), so that the name and the id both match afterwards and an
 * import of the source's export finds the record there. Answers whether it did: the target may
 * have no import route, refuse the id (not a UUID there), or hold another record under it.
 */
export async function createKeepingId(ingest: () => Promise<{ affected: number }>): Promise<boolean> {
  try {
    return (await ingest()).affected === 1;
  } catch (err) {
    const refused = err instanceof ChatflowError && (err.kind === 'unsupported' || [400, 404, 405, 422].includes(err.status ?? 0));
    if (refused) return false;
    throw err;
  }
}

const masked = (secret: boolean, v: unknown) => (secret && v !== undefined && v !== null && v !== '' ? MASK : v);

export const variableKind: Kind<Variable> = {
  noun: 'variable',
  nouns: 'variables',
  async list(client) {
    const out: Variable[] = [];
    for await (const v of client.variables.stream()) out.push(v);
    return out;
  },
  name: (v) => v.name,
  id: (v) => v.id,
  secret: (v) => SECRET_NAME.test(v.name),
  created(v) {
    const secret = SECRET_NAME.test(v.name);
    return [
      { field: 'value', to: masked(secret, v.value ?? '') },
      { field: 'type', to: v.type ?? 'static' },
    ];
  },
  compare(s, d) {
    const secret = SECRET_NAME.test(s.name);
    const changes: Change[] = [];
    if ((s.value ?? '') !== (d.value ?? '')) changes.push({ field: 'value', from: masked(secret, d.value ?? ''), to: masked(secret, s.value ?? '') });
    if ((s.type || 'static') !== (d.type || 'static')) changes.push({ field: 'type', from: d.type, to: s.type });
    return changes;
  },
  async create(client, s) {
    const body = { name: s.name, value: s.value ?? '', type: s.type || 'static' };
    if (await createKeepingId(() => client.variables.ingest([{ ...body, id: s.id }]))) return;
    await client.variables.create(body);
  },
  async update(client, s, d) {
    const body: { value?: string; type?: string } = {};
    if ((s.value ?? '') !== (d.value ?? '')) body.value = s.value ?? '';
    if ((s.type || 'static') !== (d.type || 'static')) body.type = s.type || 'static';
    await client.variables.update(d.id, body);
  },
  async remove(client, d) {
    await client.variables.delete(d.id);
  },
};

/** JSON with sorted keys: equal values, equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The details that travel: all but `id`, which the provider assigns in each environment. */
function portableDetails(a: Assistant): Record<string, unknown> {
  const { id: _id, ...rest } = (a.details ?? {}) as Record<string, unknown>;
  return rest;
}

const maskDetail = (key: string, v: unknown) => masked(SECRET_NAME.test(key), v);

export function assistantKind(opts: { credential?: string } = {}): Kind<Assistant> {
  return {
    noun: 'assistant',
    nouns: 'assistants',
    async list(client) {
      const out: Assistant[] = [];
      for await (const a of client.assistants.stream()) out.push(a);
      return out;
    },
    name: (a) => String(a.details?.name ?? ''),
    id: (a) => a.id,
    created(a) {
      const changes: Change[] = Object.entries(portableDetails(a))
        .filter(([k]) => k !== 'name')
        .map(([k, v]) => ({ field: `details.${k}`, to: maskDetail(k, v) }));
      if (a.type) changes.push({ field: 'type', to: a.type });
      if (a.iconSrc) changes.push({ field: 'iconSrc', to: a.iconSrc });
      const credential = opts.credential ?? a.credential;
      if (credential) changes.push({ field: 'credential', to: MASK });
      return changes;
    },
    compare(s, d) {
      const changes: Change[] = [];
      const dd = (d.details ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(portableDetails(s))) {
        if (canonical(v) !== canonical(dd[k])) changes.push({ field: `details.${k}`, from: maskDetail(k, dd[k]), to: maskDetail(k, v) });
      }
      if (s.type && s.type !== d.type) changes.push({ field: 'type', from: d.type, to: s.type });
      if (s.iconSrc && s.iconSrc !== d.iconSrc) changes.push({ field: 'iconSrc', from: d.iconSrc, to: s.iconSrc });
      return changes;
    },
    async create(client, s) {
      const credential = opts.credential ?? s.credential;
      const body = {
        details: portableDetails(s) as Assistant['details'],
        ...(s.type ? { type: s.type } : {}),
        ...(s.iconSrc ? { iconSrc: s.iconSrc } : {}),
        ...(credential ? { credential } : {}),
      };
      if (await createKeepingId(() => client.assistants.ingest([{ ...body, id: s.id }]))) return;
      await client.assistants.create(body);
    },
    async update(client, s, d) {
      // Keys only the target has are kept (our service merges details, Flowise replaces them).
      const details = { ...(d.details as Record<string, unknown>), ...portableDetails(s) };
      await client.assistants.update(d.id, {
        details: details as Assistant['details'],
        ...(s.type && s.type !== d.type ? { type: s.type } : {}),
        ...(s.iconSrc && s.iconSrc !== d.iconSrc ? { iconSrc: s.iconSrc } : {}),
      });
    },
    async remove(client, d) {
      await client.assistants.delete(d.id);
    },
  };
}
