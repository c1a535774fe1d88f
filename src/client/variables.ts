import type { Variable, VariableCreate, VariableIngest, VariableSet, VariableUpdate } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore, ListResult } from './core.js';
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
      core.list(routePath('listVariables'), opts, normaliseVariable),
    stream: (): AsyncIterable<Variable> => core.stream(routePath('listVariables'), undefined, normaliseVariable),
    create: async (body: VariableCreate): Promise<Variable> =>
      normaliseVariable(await core.json('POST', routePath('createVariable'), { body })),
    update: async (id: string, body: VariableUpdate): Promise<Variable> =>
      normaliseVariable(await core.json('PUT', routePath('updateVariable', id), { body })),
    /** Flowise answers an unknown id with `affected: 0`; both servers then give a 404 error. */
    delete: async (id: string): Promise<{ affected: number }> => {
      const apiPath = routePath('deleteVariable', id);
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
      const answer = (await core.json('POST', routePath('setVariable'), { body })) as VariableSet;
      return { ...answer, variable: normaliseVariable(answer.variable) };
    },
    /** Our service's extension (ids and dates kept, existing ids skipped); sent in batches under the body limit. */
    ingest: (variables: readonly VariableIngest[]): Promise<{ affected: number }> =>
      core.postBatches(routePath('importVariables'), variables),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (): IngestStream => core.ingestStream(routePath('importVariables')),
  };
}

export type VariablesApi = ReturnType<typeof variablesApi>;
