import type {
  Chatflow,
  ChatflowCreate,
  ChatflowDefinition,
  ChatflowIngest,
  ChatflowListItem,
  ChatflowUpdate,
} from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore } from './core.js';
import type { IngestStream } from './ingest-stream.js';

/** Flowise answers whole chatflow objects (flow data and all): only id and name are kept. */
const idAndName = (item: unknown): Chatflow => {
  const { id, name } = item as Chatflow;
  return { id, name };
};

/** A list's item that is a definition (our service also lists ids only records name: those have no flowData). */
const isDefinition = (item: ChatflowListItem): item is ChatflowDefinition => typeof item.flowData === 'string';

export function chatflowsApi(core: HttpCore) {
  return {
    list: async (): Promise<Chatflow[]> => (await core.list(routePath('listChatflows'), undefined, idAndName)).items,
    // ---- chatflow definitions (issue 33): both servers take and answer flowData and settings as JSON text
    /** Every chatflow's definition (of one type), as the server answers it. */
    definitions: async (query: RouteQuery<'listChatflows'> = {}): Promise<ChatflowDefinition[]> =>
      (await core.list<ChatflowListItem>(routePath('listChatflows'), query)).items.filter(isDefinition),
    get: (id: string): Promise<ChatflowDefinition> => core.json('GET', routePath('getChatflow', id)),
    create: (body: ChatflowCreate): Promise<ChatflowDefinition> => core.json('POST', routePath('createChatflow'), { body }),
    update: (id: string, body: ChatflowUpdate): Promise<ChatflowDefinition> => core.json('PUT', routePath('updateChatflow', id), { body }),
    delete: (id: string): Promise<{ affected: number }> => core.affected('DELETE', routePath('deleteChatflow', id)),
    /** Our service's extension (ids and dates kept, existing ids skipped); sent in batches under the body limit. */
    ingest: (chatflows: readonly ChatflowIngest[]): Promise<{ affected: number }> => core.postBatches(routePath('importChatflows'), chatflows),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (): IngestStream => core.ingestStream(routePath('importChatflows')),
    // ---- end chatflow definitions
  };
}

export type ChatflowsApi = ReturnType<typeof chatflowsApi>;
