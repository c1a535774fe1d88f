// `chatflow assistants` handlers.
import { ChatflowError } from '../../client/index.js';
import type { assistants } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { EXIT, UsageError, UserError } from '../base/errors.js';
import { askText, requireValue } from '../base/prompts.js';
import { plural } from '../render/text.js';
import { ASSISTANTS, find, idOf, isId } from '../base/names.js';
import { ASSISTANT_TABLE } from '../render/views.js';
import { deleteNamed, pageFlags, parseNumber, printDryRun, readJsonFile } from '../core/handler-common.js';
import { routeRequest } from '../../schema/paths.js';


/** What create and update read. */
type BodyFlags = Flags<typeof assistants, 'create'>;

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The body from --file (if any) with the flags laid over it; `details` fields are merged. */
async function assistantBody(opts: BodyFlags): Promise<Record<string, unknown>> {
  const base = opts.file ? await readJsonFile(opts.file) : {};
  const baseDetails = typeof base.details === 'string' ? (JSON.parse(base.details) as object) : ((base.details as object | undefined) ?? {});
  const details = {
    ...baseDetails,
    ...defined({
      name: opts.name,
      description: opts.description,
      model: opts.model,
      instructions: opts.instructions,
      temperature: parseNumber('--temperature', opts.temperature, { min: 0, max: 2 }),
      top_p: parseNumber('--top-p', opts.topP, { min: 0, max: 1 }),
      tools: opts.tool,
    }),
  };
  return defined({
    ...base,
    details: Object.keys(details).length ? details : undefined,
    credential: opts.credential ?? base.credential,
    iconSrc: opts.iconSrc ?? base.iconSrc,
    type: opts.type ?? base.type,
  });
}

export async function list(ctx: Context, opts: Flags<typeof assistants, 'list'>): Promise<void> {
  const { items, total } = await (await ctx.client()).assistants.list({ type: opts.type, ...pageFlags(opts) });
  await ctx.printList(items, 'assistants', ASSISTANT_TABLE);
  if (total !== undefined) ctx.out.note(`${plural(total, 'assistant')} in all`);
}

export async function get(ctx: Context, idOrName: string): Promise<void> {
  const client = await ctx.client();
  await ctx.print(await (isId(idOrName) ? client.assistants.get(idOrName) : find(ASSISTANTS, client, idOrName)), { single: true });
}

export async function create(ctx: Context, opts: BodyFlags): Promise<void> {
  const body = await assistantBody(opts);
  const details = (body.details ?? {}) as Record<string, unknown>;
  details.name = await requireValue('name', details.name as string | undefined, { prompt: () => askText('Assistant name') });
  body.details = details;
  if (opts.dryRun) return printDryRun(ctx, routeRequest('createAssistant'), { body });
  const created = await (await ctx.client()).assistants.create(body as never).catch(inCredentialWords(body.credential));
  await ctx.print(created, { single: true });
}

const FIND_ONE = "find one with 'chatflow credentials list'";

/**
 * Flowise's refusals of an assistant's credential (`Credential undefined not found`, a NOT NULL
 * constraint of its database, a text that is no UUID on PostgreSQL) in the CLI's words: what to
 * give (--credential) and where to find one. Any other failure goes on as it is.
 */
function inCredentialWords(given: unknown): (err: unknown) => never {
  return (err) => {
    const said = err instanceof ChatflowError ? (err.serverMessage ?? err.message) : '';
    const credential = typeof given === 'string' ? given : undefined;
    if (/\bCredential \S+ not found/.test(said)) {
      throw new UsageError(credential ? `no credential ${credential} on this server (--credential): ${FIND_ONE}` : `this server needs --credential <id> for an assistant of this type: ${FIND_ONE}`, { cause: err });
    }
    if (/credential/i.test(said) && /NOT NULL|null value/i.test(said)) throw new UsageError(`this server needs --credential <id> for every assistant, --type custom too: ${FIND_ONE}`, { cause: err });
    if (credential && /invalid input syntax for type uuid/.test(said)) throw new UsageError(`--credential ${credential} is not a credential id: ${FIND_ONE}`, { cause: err });
    throw err;
  };
}

export async function update(ctx: Context, idOrName: string, opts: Flags<typeof assistants, 'update'>): Promise<void> {
  const body = await assistantBody(opts);
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give a field flag or --file');
  const client = await ctx.client();
  const id = await idOf(ASSISTANTS, client, idOrName);
  if (opts.dryRun) return printDryRun(ctx, routeRequest('updateAssistant', id), { body });
  // Flowise replaces `details` whole (and refuses one without a name): send the merged object.
  if (body.details !== undefined) body.details = { ...(await client.assistants.get(id)).details, ...(body.details as object) };
  await ctx.print(await client.assistants.update(id, body as never).catch(inCredentialWords(body.credential)), { single: true });
}

export async function remove(ctx: Context, idsOrNames: string[], opts: Flags<typeof assistants, 'delete'>): Promise<number | void> {
  const client = await ctx.client();
  return deleteNamed(ctx, ASSISTANTS, idsOrNames, opts, 'deleteAssistant', async (id, arg) => {
    const { affected } = await client.assistants.delete(id);
    if (affected === 0) throw new UserError(`assistant ${arg} not found`, EXIT.notFound);
  });
}
