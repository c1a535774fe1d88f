// Flowise's credentials, by name and kind (`credentialName`, e.g. openAIApi), never their secrets:
// a chatflow refers to a credential by its id, which differs between servers (issue 33 carries
// the name and kind instead). Our service keeps no credentials.
import type { HttpCore } from './core.js';

export interface Credential {
  id: string;
  name: string;
  /** The kind of credential (Flowise's component name, e.g. openAIApi). */
  credentialName: string;
}

const summary = (item: unknown): Credential => {
  const { id, name, credentialName } = item as Credential;
  return { id, name, credentialName };
};

export function credentialsApi(core: HttpCore) {
  return {
    list: async (): Promise<Credential[]> => (await core.list('/credentials', undefined, summary)).items,
  };
}
