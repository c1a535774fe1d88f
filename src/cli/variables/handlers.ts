// `chatflow variables` handlers.
import type { Variable } from '../../client/index.js';
import type { variables } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { UsageError } from '../base/errors.js';
import { find, idOf, VARIABLES } from '../base/names.js';
import { askText, requireValue } from '../base/prompts.js';
import { plural } from '../render/text.js';
import { VARIABLE_TABLE } from '../render/views.js';
import { bodyFrom, deleteNamed, printDryRun, printPageOrStream } from '../core/handler-common.js';
import { routeRequest } from '../../schema/paths.js';


/**
 * A new variable's type when --type is not given: our service's default, sent explicitly, as
 * Flowise stores `string` (a type its UI does not offer) when none is sent.
 */
const NEW_TYPE = 'static';

/** What create and update read. */
type BodyFlags = Flags<typeof variables, 'create'>;

export async function list(ctx: Context, opts: Flags<typeof variables, 'list'>): Promise<void> {
  const client = await ctx.client();
  await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.variables.list(page), stream: () => client.variables.stream() },
    { list: 'variables', unit: 'variable' },
    VARIABLE_TABLE,
  );
}

export async function get(ctx: Context, idOrName: string): Promise<void> {
  await ctx.print(await find(VARIABLES, await ctx.client(), idOrName), { single: true });
}

export async function create(ctx: Context, opts: BodyFlags): Promise<void> {
  const body = await bodyFrom(opts.file, { name: opts.name, value: opts.value, type: opts.type });
  body.name = await requireValue('name', body.name as string | undefined, { prompt: () => askText('Variable name') });
  body.type ??= NEW_TYPE;
  if (opts.dryRun) return printDryRun(ctx, routeRequest('createVariable'), { body });
  const created = await (await ctx.client()).variables.create(body as { name: string });
  await ctx.print(created, { single: true });
}

export async function update(ctx: Context, idOrName: string, opts: Flags<typeof variables, 'update'>): Promise<void> {
  const body = await bodyFrom(opts.file, { name: opts.name, value: opts.value, type: opts.type });
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --name, --value, --type or --file');
  const client = await ctx.client();
  const id = await idOf(VARIABLES, client, idOrName);
  if (opts.dryRun) return printDryRun(ctx, routeRequest('updateVariable', id), { body });
  await ctx.print(await client.variables.update(id, body), { single: true });
}

export async function remove(ctx: Context, idsOrNames: string[], opts: Flags<typeof variables, 'delete'>): Promise<number | void> {
  const client = await ctx.client();
  return deleteNamed(ctx, VARIABLES, idsOrNames, opts, 'deleteVariable', (id) => client.variables.delete(id).then(() => undefined));
}

export async function set(ctx: Context, name: string, value: string, opts: Flags<typeof variables, 'set'>): Promise<void> {
  const client = await ctx.client();
  if ((await client.server()) === 'chatflow') {
    // Our service updates or creates in one transaction: commands setting one name at once end
    // with one variable, holding one of their values (a new one `static` unless --type says).
    const body = { name, value, ...(opts.type ? { type: opts.type } : {}) };
    if (opts.dryRun) return printDryRun(ctx, routeRequest('setVariable'), { body });
    const { variable, created } = await client.variables.set(body).catch((err: unknown) => {
      if ((err as { status?: number }).status === 409) throw new UsageError(`several variables are named ${name}: update one by id with 'chatflow variables update'`);
      throw err;
    });
    ctx.out.note(`${created ? 'created' : 'updated'} variable ${name}`);
    await ctx.print(variable, { single: true });
    return;
  }
  // Flowise has no such request: the name is looked up, then the variable updated or created,
  // and commands setting one new name at once may each create one.
  const existing: Variable[] = [];
  for await (const v of client.variables.stream()) if (v.name === name) existing.push(v);
  if (existing.length > 1) throw new UsageError(`${existing.length} variables are named ${name}: update one by id with 'chatflow variables update'`);
  const target = existing[0];
  // An existing variable keeps its type unless --type changes it.
  const type = opts.type ?? (target ? undefined : NEW_TYPE);
  const body = { name, value, ...(type ? { type } : {}) };
  if (opts.dryRun) return printDryRun(ctx, target ? routeRequest('updateVariable', target.id) : routeRequest('createVariable'), { body });
  const saved = target ? await client.variables.update(target.id, body) : await client.variables.create(body);
  ctx.out.note(`${target ? 'updated' : 'created'} variable ${name}`);
  await ctx.print(saved, { single: true });
}
