import type { Assistant, AssistantCreate, AssistantDetails, AssistantIngest, AssistantUpdate } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore, ListResult } from './core.js';
import type { IngestStream } from './ingest-stream.js';

/** Flowise stores and answers `details` as a JSON string: callers always get an object. */
function parseDetails(details: unknown): AssistantDetails {
  if (typeof details !== 'string') return details as AssistantDetails;
  try {
    const parsed = JSON.parse(details) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as AssistantDetails;
  } catch {
    // not JSON: keep the text rather than lose it
  }
  return { raw: details } as unknown as AssistantDetails;
}

function normaliseAssistant(item: unknown): Assistant {
  const a = item as Assistant;
  return a && typeof a === 'object' && 'details' in a ? { ...a, details: parseDetails(a.details) } : a;
}

/** `details` goes out as a JSON string: Flowise requires it, our service accepts it. */
function outgoing<B extends { details?: unknown }>(body: B): B {
  return body.details !== undefined && typeof body.details !== 'string'
    ? { ...body, details: JSON.stringify(body.details) }
    : body;
}

export function assistantsApi(core: HttpCore) {
  return {
    list: (opts: RouteQuery<'listAssistants'> = {}): Promise<ListResult<Assistant>> =>
      core.list(routePath('listAssistants'), opts, normaliseAssistant),
    stream: (opts: Pick<RouteQuery<'listAssistants'>, 'type'> = {}): AsyncIterable<Assistant> =>
      core.stream(routePath('listAssistants'), opts, normaliseAssistant),
    get: async (id: string): Promise<Assistant> =>
      normaliseAssistant(await core.json('GET', routePath('getAssistant', id))),
    create: async (body: AssistantCreate): Promise<Assistant> =>
      normaliseAssistant(await core.json('POST', routePath('createAssistant'), { body: outgoing(body) })),
    update: async (id: string, body: AssistantUpdate): Promise<Assistant> =>
      normaliseAssistant(await core.json('PUT', routePath('updateAssistant', id), { body: outgoing(body) })),
    delete: (id: string): Promise<{ affected: number }> => core.affected('DELETE', routePath('deleteAssistant', id)),
    /** Our service's extension (ids and dates kept, existing ids skipped); sent in batches under the body limit. */
    ingest: (assistants: readonly AssistantIngest[]): Promise<{ affected: number }> =>
      core.postBatches(routePath('importAssistants'), assistants),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (): IngestStream => core.ingestStream(routePath('importAssistants')),
  };
}

export type AssistantsApi = ReturnType<typeof assistantsApi>;
