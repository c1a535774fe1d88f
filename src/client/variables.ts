import type { Variable, VariableCreate, VariableIngest, VariableSet, VariableUpdate } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { type HttpCore, type ListResult, path } from './core.js';
import type { IngestStream } from './ingest-stream.js';
import { ChatflowError } from './errors.js';

/** Flowise echoes a numeric `value` as a number on create; a variable's value is a string. */
function normaliseVariable(item: unknown): Variable {
  const v = item as Variable;
  if (v && typeof v === 'object' && v.value !== undefined && typeof v.value !== 'string') {
    return { ...v, value: String(v.value) };
  }
  return v;
}

export function variablesApi(core: HttpCore) {
  return {
    /** With page and limit, `total` is the number of all variables. */
    list: (opts: RouteQuery<'listVariables'> = {}): Promise<ListResult<Variable>> =>
      core.list('/variables', opts, normaliseVariable),
    stream: (): AsyncIterable<Variable> => core.stream('/variables', undefined, normaliseVariable),
    create: async (body: VariableCreate): Promise<Variable> =>
      normaliseVariable(await core.json('POST', '/variables', { body })),
    update: async (id: string, body: VariableUpdate): Promise<Variable> =>
      normaliseVariable(await core.json('PUT', path`/variables/${id}`, { body })),
    /** Flowise answers an unknown id with `affected: 0`; both servers then give a 404 error. */
    delete: async (id: string): Promise<{ affected: number }> => {
      const apiPath = path`/variables/${id}`;
      const result = await core.affected('DELETE', apiPath);
      if (result.affected === 0) {
        throw new ChatflowError('http', `Variable ${id} not found`, { status: 404, method: 'DELETE', path: apiPath });
      }
      return result;
    },
    /**
     * Our service's extension: the one variable of this name updated, or created when there is
     * none, in one transaction (sets of one name at once never make two); a 409 when several have it.
     */
    set: async (body: VariableCreate): Promise<VariableSet> => {
      const answer = (await core.json('POST', '/variables/set', { body })) as VariableSet;
      return { ...answer, variable: normaliseVariable(answer.variable) };
    },
    /** Our service's extension (ids and dates kept, existing ids skipped); sent in batches under the body limit. */
    ingest: (variables: readonly VariableIngest[]): Promise<{ affected: number }> =>
      core.postBatches('/variables/import', variables),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (): IngestStream => core.ingestStream('/variables/import'),
  };
}

export type VariablesApi = ReturnType<typeof variablesApi>;
