import type { Chatflow } from '../schema/resources.js';
import type { HttpCore } from './core.js';

/** Flowise answers whole chatflow objects (flow data and all): only id and name are kept. */
const idAndName = (item: unknown): Chatflow => {
  const { id, name } = item as Chatflow;
  return { id, name };
};

export function chatflowsApi(core: HttpCore) {
  return {
    list: async (): Promise<Chatflow[]> => (await core.list('/chatflows', undefined, idAndName)).items,
  };
}

export type ChatflowsApi = ReturnType<typeof chatflowsApi>;
