import { routePath } from '../schema/paths.js';
import type { HttpCore } from './core.js';

export function serviceApi(core: HttpCore) {
  return {
    /** `pong` (Flowise answers it as text/html, our service as text/plain). */
    ping: async (): Promise<string> => (await core.text(routePath('ping'))).trim(),
    version: (): Promise<{ version: string }> => core.json('GET', routePath('version')),
  };
}
