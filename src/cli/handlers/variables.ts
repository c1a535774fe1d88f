// `chatflow variables` handlers.
import type { ChatflowClient, Variable } from '../../client/index.js';
import type { Context } from '../core/context.js';
import { EXIT, UsageError, UserError } from '../core/errors.js';
import { askText, requireValue } from '../prompts.js';
import { plural } from '../render/text.js';
import { bodyFrom, confirmOrRefuse, printDryRun, printPageOrStream } from './common.js';

const COLUMNS = ['id', 'name', 'value', 'type', 'updatedDate'];

interface VariableFlags {
  name?: string;
  value?: string;
  type?: string;
  file?: string;
  dryRun?: boolean;
  yes?: boolean;
}

/** A variable by id, or by name when exactly one has that name. */
async function findVariable(client: ChatflowClient, idOrName: string): Promise<Variable> {
  const matches: Variable[] = [];
  for await (const v of client.variables.stream()) {
    if (v.id === idOrName) return v;
    if (v.name === idOrName) matches.push(v);
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new UsageError(`${matches.length} variables are named ${idOrName}: give the id (${matches.map((m) => m.id).join(', ')})`);
  throw new UserError(`variable ${idOrName} not found`, EXIT.notFound);
}

export async function list(ctx: Context, opts: { page?: string; limit?: string }): Promise<void> {
  const client = await ctx.client();
  await printPageOrStream(
    ctx,
    opts,
    { page: (page) => client.variables.list(page), stream: () => client.variables.stream() },
    { list: 'variables', unit: 'variable' },
    COLUMNS,
  );
}

export async function get(ctx: Context, idOrName: string): Promise<void> {
  await ctx.print(await findVariable(await ctx.client(), idOrName), { single: true });
}

export async function create(ctx: Context, opts: VariableFlags): Promise<void> {
  const body = await bodyFrom(opts.file, { name: opts.name, value: opts.value, type: opts.type });
  body.name = await requireValue('name', body.name as string | undefined, { prompt: () => askText('Variable name') });
  if (opts.dryRun) return printDryRun(ctx, 'POST', '/variables', { body });
  const created = await (await ctx.client()).variables.create(body as { name: string });
  await ctx.print(created, { single: true });
}

export async function update(ctx: Context, id: string, opts: VariableFlags): Promise<void> {
  const body = await bodyFrom(opts.file, { name: opts.name, value: opts.value, type: opts.type });
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --name, --value, --type or --file');
  if (opts.dryRun) return printDryRun(ctx, 'PUT', `/variables/${id}`, { body });
  await ctx.print(await (await ctx.client()).variables.update(id, body), { single: true });
}

export async function remove(ctx: Context, ids: string[], opts: VariableFlags): Promise<void> {
  if (opts.dryRun) {
    for (const id of ids) await printDryRun(ctx, 'DELETE', `/variables/${id}`);
    return;
  }
  await confirmOrRefuse(`Delete ${plural(ids.length, 'variable')} (${ids.join(', ')})?`, opts.yes);
  const client = await ctx.client();
  for (const id of ids) {
    await client.variables.delete(id);
    ctx.out.note(`deleted variable ${id}`);
  }
}

export async function set(ctx: Context, name: string, value: string, opts: VariableFlags): Promise<void> {
  const client = await ctx.client();
  const existing: Variable[] = [];
  for await (const v of client.variables.stream()) if (v.name === name) existing.push(v);
  if (existing.length > 1) throw new UsageError(`${existing.length} variables are named ${name}: update one by id with 'chatflow variables update'`);
  const body = { name, value, ...(opts.type ? { type: opts.type } : {}) };
  const target = existing[0];
  if (opts.dryRun) return printDryRun(ctx, target ? 'PUT' : 'POST', target ? `/variables/${target.id}` : '/variables', { body });
  const saved = target ? await client.variables.update(target.id, body) : await client.variables.create(body);
  ctx.out.note(`${target ? 'updated' : 'created'} variable ${name}`);
  await ctx.print(saved, { single: true });
}
