import { storedBounds, pageOf, sortOrder } from './query.js';
import type { HandlersFor } from './types.js';

type Names = 'listUpsertHistory' | 'listAllUpsertHistory' | 'deleteUpsertHistory' | 'deleteAnyUpsertHistory' | 'ingestUpsertHistory';

export const upsertHistoryRoutes: HandlersFor<Names> = {
  listUpsertHistory: {
    handle: ({ store, params, query }) => store.upsertHistory.list({ chatflowid: params.id, ...storedBounds(query) }, sortOrder(query.order), pageOf(query)),
  },
  listAllUpsertHistory: {
    handle: ({ store, query }) => store.upsertHistory.list(storedBounds(query), sortOrder(query.order), pageOf(query)),
  },
  deleteUpsertHistory: {
    handle: async ({ store, params, body }) => ({ affected: await store.upsertHistory.softDelete(params.id, body.ids) }),
  },
  deleteAnyUpsertHistory: {
    handle: async ({ store, body }) => ({ affected: await store.upsertHistory.softDelete(undefined, body.ids) }),
  },
  ingestUpsertHistory: {
    handle: async ({ store, params, body }) => ({
      affected: await store.upsertHistory.ingest(params.id, Array.isArray(body) ? body : [body]),
    }),
  },
};
