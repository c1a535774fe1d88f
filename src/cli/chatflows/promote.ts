// Chatflows as a kind of record to diff, sync and import (issue 33): matched by name, compared in
// their portable form (./files.ts: credentials by name and kind, ids and timestamps
// left out), created and updated with each target's own credential ids.
import { ChatflowError, type ChatflowClient, type Credential } from '../../client/index.js';
import {
  changes,
  credentialLookup,
  refText,
  refsOf,
  summaryOf,
  toBody,
  toPortable,
  type CredentialRef,
  type Portable,
} from './files.js';
import { EXIT, UserError } from '../base/errors.js';
import { createKeepingId, type Change, type Kind, type PlanItem } from '../promote/plan.js';
import { plural } from '../render/text.js';

/** The most differences a chatflow's plan line lists one by one. */
const SHOWN_CHANGES = 20;

/**
 * A server's credentials, or undefined for one that keeps none (our service: its flows hold
 * references by name already). Flowise answers them only to a key with credentials:view.
 */
export async function credentialsOf(client: ChatflowClient, where: string): Promise<Credential[] | undefined> {
  if ((await client.server()) !== 'flowise') return undefined;
  try {
    return await client.credentials.list();
  } catch (err) {
    if (err instanceof ChatflowError && (err.status === 401 || err.status === 403)) {
      throw new UserError(`cannot read the credentials of ${where}: its API key needs the credentials:view permission (a chatflow names its credentials by id there)`, EXIT.auth);
    }
    throw err;
  }
}

/** A credential's line in a refusal: what it is, and which chatflows use it. */
export interface Unmatched {
  ref: CredentialRef;
  /** How many credentials of that name and kind the target has (0, or several). */
  found: number;
  users: string[];
}

/** "the target lacks 1 credential …: openAIApi "OpenAI" (used by Support bot)", or undefined. */
export function missingText(unmatched: Map<string, Unmatched>, where: string): string | undefined {
  const all = [...unmatched.values()];
  const text = (list: Unmatched[]) => list.map(({ ref, users }) => `${refText(ref)} (used by ${users.join(', ')})`).join('; ');
  const missing = all.filter((u) => u.found === 0);
  const several = all.filter((u) => u.found > 1);
  const parts = [
    ...(missing.length ? [`${where} lacks ${plural(missing.length, 'credential')} the chatflows use: ${text(missing)}; create ${missing.length === 1 ? 'it' : 'them'} there with the same name and kind`] : []),
    ...(several.length ? [`${where} has several credentials of one name and kind: ${text(several)}; rename all but one there`] : []),
  ];
  return parts.length ? `${parts.join('; and ')}; then run this again` : undefined;
}

export interface ChatflowKindOptions {
  /** Only chatflows of these names (both sides). */
  only?: readonly string[];
  /** Creates keep the source's id where the target takes one (our service). */
  keepIds: boolean;
  warn: (msg: string) => void;
}

export interface ChatflowKind extends Kind<Portable> {
  /** Remembers a client's credentials (the import's target is listed by the kind too). */
  credentials: Map<ChatflowClient, Credential[] | undefined>;
  /** Why the plan cannot be applied to `target`: credentials it lacks. */
  refusal(plan: PlanItem[], source: readonly Portable[], target: ChatflowClient, where: string): string | undefined;
}

export function chatflowKind(opts: ChatflowKindOptions): ChatflowKind {
  const credentials = new Map<ChatflowClient, Credential[] | undefined>();
  const only = opts.only ? new Set(opts.only) : undefined;
  const resolver = (client: ChatflowClient) => credentialLookup(credentials.get(client));
  const body = (client: ChatflowClient, s: Portable) => toBody(s, resolver(client).resolve);
  return {
    noun: 'chatflow',
    nouns: 'chatflows',
    credentials,
    async list(client) {
      const where = client.serverUrl;
      const [defs, creds] = await Promise.all([client.chatflows.definitions(), credentialsOf(client, where)]);
      credentials.set(client, creds);
      const unknown = new Set<string>();
      const out = defs
        .filter((d) => !only || only.has(d.name))
        .map((d) => toPortable(d, creds, (id) => {
          if (!unknown.has(id)) opts.warn(`chatflow ${d.name} on ${where}: credential ${id} is not among the server's credentials; kept as an id`);
          unknown.add(id);
        }));
      return out;
    },
    name: (c) => c.name,
    id: (c) => c.id ?? '',
    created: (c): Change[] => summaryOf(c),
    // `flowData.nodes[llm_0].data.inputs.x` → `node llm_0`; `chatbotConfig.welcomeMessage` → `chatbotConfig`.
    brief(field) {
      const node = /^flowData\.nodes\[([^\]]*)\]/.exec(field)?.[1];
      return node === undefined ? field.split(/[.[]/)[0]! : `node ${node}`;
    },
    compare(s, d): Change[] {
      const all = changes(d, s);
      if (all.length <= SHOWN_CHANGES) return all;
      return [...all.slice(0, SHOWN_CHANGES), { field: '…', to: `${all.length - SHOWN_CHANGES} more differences (-o json lists them all)` }];
    },
    async create(client, s) {
      const b = body(client, s);
      if (opts.keepIds && s.id && (await createKeepingId(() => client.chatflows.ingest([{ ...b, id: s.id! }])))) return;
      await client.chatflows.create(b);
    },
    async update(client, s, d) {
      await client.chatflows.update(d.id!, body(client, s));
    },
    async remove(client, d) {
      await client.chatflows.delete(d.id!);
    },
    refusal(plan, source, target, where) {
      const lookup = resolver(target);
      const byName = new Map(source.map((s) => [s.name, s]));
      const unmatched = new Map<string, Unmatched>();
      for (const { entry } of plan) {
        if (entry.action !== 'create' && entry.action !== 'update') continue;
        const s = byName.get(entry.name);
        if (!s) continue;
        for (const { ref, found } of lookup.unmatched(refsOf(s))) {
          const u = unmatched.get(refText(ref)) ?? { ref, found, users: [] };
          u.users.push(s.name);
          unmatched.set(refText(ref), u);
        }
      }
      return missingText(unmatched, where);
    },
  };
}
