// The export file format, shared by `chatflow export` and `chatflow import`: JSON lines, one record
// a line, each tagged with its resource; the records of a chatflow also carry its id:
//
//   {"resource":"chatflow","data":{"id":"…","name":"…","flowData":"{…}","type":"CHATFLOW",…}}
//   {"resource":"variable","data":{"id":"…","name":"…","value":"…","type":"static",…}}
//   {"resource":"assistant","data":{"id":"…","details":{…},…}}
//   {"resource":"message","chatflowid":"flow1","data":{"id":"…","role":"userMessage",…}}
//   {"resource":"feedback","chatflowid":"flow1","data":{"id":"…","messageId":"…",…}}
//   {"resource":"upsert-history","chatflowid":"flow1","data":{"id":"…","date":"…",…}}
//
// `data` is the record exactly as the server lists it, but for a chatflow's credentials: where
// its flowData or settings hold a credential's id (which differs between servers), they hold
// `{"name":…,"kind":…}` (../chatflows/files.ts). An export writes chatflow definitions, variables,
// assistants, then for each chatflow its messages, feedback and upsert history (feedback after the
// messages it rates, which is the order an import needs).
import { UsageError } from '../base/errors.js';

/** `--resources` names, in export order. */
export const RESOURCES = ['chatflows', 'variables', 'assistants', 'messages', 'feedback', 'upsert-history'] as const;
export type Resource = (typeof RESOURCES)[number];

/** The `resource` tag of each line. */
export const TAGS: Record<Resource, string> = {
  chatflows: 'chatflow',
  variables: 'variable',
  assistants: 'assistant',
  messages: 'message',
  feedback: 'feedback',
  'upsert-history': 'upsert-history',
};
export const RESOURCE_OF_TAG = new Map(RESOURCES.map((r) => [TAGS[r], r]));

/** Records that belong to a chatflow (their lines carry `chatflowid`). */
export const PER_CHATFLOW: ReadonlySet<Resource> = new Set(['messages', 'feedback', 'upsert-history']);

/** `--resources a,b`: plural or singular names, in any order; answers them in export order. */
export function parseResources(text: string | undefined): Resource[] {
  if (text === undefined) return [...RESOURCES];
  const wanted = new Set<Resource>();
  for (const raw of text.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    const r = (RESOURCES as readonly string[]).includes(raw) ? (raw as Resource) : RESOURCE_OF_TAG.get(raw);
    if (!r) throw new UsageError(`invalid --resources "${raw}": use ${RESOURCES.join(', ')} (comma-separated)`);
    wanted.add(r);
  }
  if (wanted.size === 0) throw new UsageError(`--resources is empty: use ${RESOURCES.join(', ')} (comma-separated)`);
  return RESOURCES.filter((r) => wanted.has(r));
}
