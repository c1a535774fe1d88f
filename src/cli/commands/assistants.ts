// `chatflow assistants`: stored assistant definitions (model, instructions, sampling, tools).
import type { Command } from 'commander';
import { ASSISTANT_TOOLS, ASSISTANT_TYPES } from '../../schema/enums.js';
import type { Context } from '../context.js';
import { UsageError } from '../exit.js';
import { collect, dataCommand, examples, mutation } from '../options.js';
import { printNote } from '../output.js';
import { askText, requireValue } from '../prompts.js';
import { action, addPageOptions, confirmOrRefuse, pageFlags, parseNumber, plural, printDryRun, readJsonFile } from '../run.js';
import { registerAssistantsPromote } from './promote.js';

const COLUMNS = ['id', 'details.name', 'details.model', 'type', 'updatedDate'];

interface BodyFlags {
  name?: string;
  description?: string;
  model?: string;
  instructions?: string;
  temperature?: string;
  topP?: string;
  tool?: string[];
  credential?: string;
  iconSrc?: string;
  type?: string;
  file?: string;
  dryRun?: boolean;
  yes?: boolean;
}

function assistantType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.toUpperCase();
  if (!(ASSISTANT_TYPES as readonly string[]).includes(v)) throw new UsageError(`invalid --type "${value}": use ${ASSISTANT_TYPES.join(', ')}`);
  return v;
}

function tools(values: string[] | undefined): string[] | undefined {
  for (const t of values ?? []) {
    if (!(ASSISTANT_TOOLS as readonly string[]).includes(t)) throw new UsageError(`invalid --tool "${t}": use ${ASSISTANT_TOOLS.join(', ')}`);
  }
  return values;
}

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
      tools: tools(opts.tool),
    }),
  };
  return defined({
    ...base,
    details: Object.keys(details).length ? details : undefined,
    credential: opts.credential ?? base.credential,
    iconSrc: opts.iconSrc ?? base.iconSrc,
    type: assistantType(opts.type) ?? base.type,
  });
}

const bodyFlags = (cmd: Command) =>
  cmd
    .option('--name <name>', 'assistant name')
    .option('--description <text>', 'description')
    .option('--model <model>', 'model name, e.g. gpt-4o')
    .option('--instructions <text>', 'system instructions')
    .option('--temperature <n>', 'sampling temperature, 0 to 2')
    .option('--top-p <n>', 'nucleus sampling, 0 to 1')
    .option('--tool <tool>', `enable a tool: ${ASSISTANT_TOOLS.join(', ')} (repeatable)`, collect)
    .option('--credential <id>', 'credential record id')
    .option('--icon-src <path>', 'icon path')
    .option('--type <type>', `assistant type: ${ASSISTANT_TYPES.join(', ')}`)
    .option('--file <path>', 'whole JSON body from a file, or - for stdin (flags override its keys)');

export function registerAssistants(program: Command): void {
  const group = program.command('assistants').alias('assistant').description('assistant definitions: model, instructions, sampling, tools');

  addPageOptions(dataCommand(group.command('list').alias('ls').description('list assistants')))
    .option('--type <type>', `only this type: ${ASSISTANT_TYPES.join(', ')}`)
    .addHelpText('after', examples(['chatflow assistants list', 'chatflow assistants list --type CUSTOM --fields id,details.name']))
    .action(
      action(async (ctx: Context, opts: { type?: string; page?: string; limit?: string }) => {
        const { items, total } = await (await ctx.client()).assistants.list({ type: assistantType(opts.type) as never, ...pageFlags(opts) });
        await ctx.printList(items, 'assistants', COLUMNS);
        if (total !== undefined) printNote(`${plural(total, 'assistant')} in all`);
      }),
    );

  dataCommand(group.command('get').description('show one assistant').argument('<id>'))
    .addHelpText('after', examples(['chatflow assistants get 1f09… -o yaml']))
    .action(
      action(async (ctx: Context, id: string) => {
        await ctx.print(await (await ctx.client()).assistants.get(id), { single: true });
      }),
    );

  mutation(bodyFlags(dataCommand(group.command('create').description('create an assistant'))))
    .addHelpText(
      'after',
      examples([
        'chatflow assistants create --name Support --model gpt-4o --temperature 0.2 --tool file_search',
        'chatflow assistants create --file assistant.json',
      ]),
    )
    .action(
      action(async (ctx: Context, opts: BodyFlags) => {
        const body = await assistantBody(opts);
        const details = (body.details ?? {}) as Record<string, unknown>;
        details.name = await requireValue('name', details.name as string | undefined, { prompt: () => askText('Assistant name') });
        body.details = details;
        if (opts.dryRun) return printDryRun(ctx, 'POST', '/assistants', { body });
        await ctx.print(await (await ctx.client()).assistants.create(body as never), { single: true });
      }),
    );

  mutation(bodyFlags(dataCommand(group.command('update').description('change an assistant (details are merged)').argument('<id>'))))
    .addHelpText('after', examples(['chatflow assistants update 1f09… --temperature 0.7 --tool function --tool code_interpreter']))
    .action(
      action(async (ctx: Context, id: string, opts: BodyFlags) => {
        const body = await assistantBody(opts);
        if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give a field flag or --file');
        if (opts.dryRun) return printDryRun(ctx, 'PUT', `/assistants/${id}`, { body });
        const client = await ctx.client();
        // Flowise replaces `details` whole (and refuses one without a name): send the merged object.
        if (body.details !== undefined) body.details = { ...(await client.assistants.get(id)).details, ...(body.details as object) };
        await ctx.print(await client.assistants.update(id, body as never), { single: true });
      }),
    );

  mutation(dataCommand(group.command('delete').alias('rm').description('delete assistants').argument('<id...>')), { destructive: true })
    .addHelpText('after', examples(['chatflow assistants delete 1f09… --yes']))
    .action(
      action(async (ctx: Context, ids: string[], opts: BodyFlags) => {
        if (opts.dryRun) {
          for (const id of ids) await printDryRun(ctx, 'DELETE', `/assistants/${id}`);
          return;
        }
        await confirmOrRefuse(`Delete ${plural(ids.length, 'assistant')} (${ids.join(', ')})?`, opts.yes);
        const client = await ctx.client();
        for (const id of ids) {
          await client.assistants.delete(id);
          printNote(`deleted assistant ${id}`);
        }
      }),
    );

  registerAssistantsPromote(group);
}
