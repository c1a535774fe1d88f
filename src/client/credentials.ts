// Flowise's credentials, by name and kind (`credentialName`, e.g. openAIApi), never their secrets:
// a chatflow refers to a credential by its id, which differs between servers (chatflow files carry
// the name and kind instead). Our service keeps no credentials.
import { CREDENTIALS_PATH } from '../schema/paths.js';
import type { HttpCore } from './core.js';

/**
 * A credential as Flowise lists it (`GET /api/v1/credentials`): what it is called and of which
 * kind, never its secret. Our service keeps no credentials (an assistant's is free text there).
 */
export interface Credential {
  id: string;
  name: string;
  /** The kind: `openAIApi`, `anthropicApi`… */
  credentialName: string;
}

/**
 * Only these fields are kept: the list is asked without `credentialName` (with it, Flowise adds
 * `encryptedData`), and anything else it may add is dropped here.
 */
const safe = (item: unknown): Credential => {
  const { id, name, credentialName } = item as Credential;
  return { id, name, credentialName };
};

export function credentialsApi(core: HttpCore) {
  return {
    list: async (): Promise<Credential[]> => (await core.list(CREDENTIALS_PATH, undefined, safe)).items,
  };
}
