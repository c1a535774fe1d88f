// `chatflow variables`: list, get, create, update, delete, and set (create or update by name).
import type { Command } from 'commander';
import type { ChatflowClient, Variable } from '../../client/index.js';
import type { Context } from '../context.js';
import { EXIT, UsageError } from '../exit.js';
import { dataCommand, examples, mutation } from '../options.js';
import { printNote } from '../output.js';
import { askText, requireValue } from '../prompts.js';
import { action, printPageOrStream, addPageOptions, bodyFrom, confirmOrRefuse, plural, printDryRun } from '../run.js';
import { registerVariablesPromote } from './promote.js';

const COLUMNS = ['id', 'name', 'value', 'type', 'updatedDate'];

interface VariableFlags {
  name?: string;
  value?: string;
  type?: string;
  file?: string;
  dryRun?: boolean;
  yes?: boolean;
}

const bodyFlags = (cmd: Command) =>
  cmd
    .option('--name <name>', 'variable name')
    .option('--value <value>', 'variable value')
    .option('--type <type>', 'variable type: static or runtime (value read from the environment when a flow runs)')
    .option('--file <path>', 'whole JSON body from a file, or - for stdin (flags override its keys)');

/** A variable by id, or by name when exactly one has that name. */
async function findVariable(client: ChatflowClient, idOrName: string): Promise<Variable> {
  const matches: Variable[] = [];
  for await (const v of client.variables.stream()) {
    if (v.id === idOrName) return v;
    if (v.name === idOrName) matches.push(v);
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new UsageError(`${matches.length} variables are named ${idOrName}: give the id (${matches.map((m) => m.id).join(', ')})`);
  throw Object.assign(new Error(`variable ${idOrName} not found`), { exitCode: EXIT.notFound });
}

export function registerVariables(program: Command): void {
  const group = program
    .command('variables')
    .alias('variable')
    .alias('vars')
    .description('named values (name, value, type) used by chatflows');

  addPageOptions(dataCommand(group.command('list').alias('ls').description('list variables, most recently updated first')))
    .addHelpText('after', examples(['chatflow variables list', 'chatflow vars ls -o csv --fields name,value', 'chatflow vars ls -q | xargs chatflow vars rm -y']))
    .action(
      action(async (ctx: Context, opts: { page?: string; limit?: string }) => {
        const client = await ctx.client();
        await printPageOrStream(
          ctx,
          opts,
          { page: (page) => client.variables.list(page), stream: () => client.variables.stream() },
          { list: 'variables', unit: 'variable' },
          COLUMNS,
        );
      }),
    );

  dataCommand(group.command('get').description('show one variable').argument('<id|name>', 'variable id, or a name only one variable has'))
    .addHelpText('after', examples(['chatflow variables get OPENAI_MODEL', 'chatflow variables get 3f1c… -o json']))
    .action(
      action(async (ctx: Context, idOrName: string) => {
        await ctx.print(await findVariable(await ctx.client(), idOrName), { single: true });
      }),
    );

  mutation(bodyFlags(dataCommand(group.command('create').description('create a variable'))))
    .addHelpText('after', examples(['chatflow variables create --name OPENAI_MODEL --value gpt-4o', 'chatflow variables create --name REGION --type runtime', 'chatflow variables create --file variable.json']))
    .action(
      action(async (ctx: Context, opts: VariableFlags) => {
        const body = await bodyFrom(opts.file, { name: opts.name, value: opts.value, type: opts.type });
        body.name = await requireValue('name', body.name as string | undefined, { prompt: () => askText('Variable name') });
        if (opts.dryRun) return printDryRun(ctx, 'POST', '/variables', { body });
        const created = await (await ctx.client()).variables.create(body as { name: string });
        await ctx.print(created, { single: true });
      }),
    );

  mutation(bodyFlags(dataCommand(group.command('update').description('change a variable (only the given fields)').argument('<id>', 'variable id'))))
    .addHelpText('after', examples(['chatflow variables update 3f1c… --value gpt-4o-mini', 'echo \'{"value":"x"}\' | chatflow variables update 3f1c… --file -']))
    .action(
      action(async (ctx: Context, id: string, opts: VariableFlags) => {
        const body = await bodyFrom(opts.file, { name: opts.name, value: opts.value, type: opts.type });
        if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --name, --value, --type or --file');
        if (opts.dryRun) return printDryRun(ctx, 'PUT', `/variables/${id}`, { body });
        await ctx.print(await (await ctx.client()).variables.update(id, body), { single: true });
      }),
    );

  mutation(dataCommand(group.command('delete').alias('rm').description('delete variables').argument('<id...>', 'variable ids')), { destructive: true })
    .addHelpText('after', examples(['chatflow variables delete 3f1c… 9a2b… --yes']))
    .action(
      action(async (ctx: Context, ids: string[], opts: VariableFlags) => {
        if (opts.dryRun) {
          for (const id of ids) await printDryRun(ctx, 'DELETE', `/variables/${id}`);
          return;
        }
        await confirmOrRefuse(`Delete ${plural(ids.length, 'variable')} (${ids.join(', ')})?`, opts.yes);
        const client = await ctx.client();
        for (const id of ids) {
          await client.variables.delete(id);
          printNote(`deleted variable ${id}`);
        }
      }),
    );

  mutation(dataCommand(group.command('set').description('create a variable, or update the one with that name').argument('<name>').argument('<value>')))
    .option('--type <type>', 'variable type (static or runtime)')
    .addHelpText('after', examples(['chatflow variables set OPENAI_MODEL gpt-4o', 'chatflow variables set REGION eu-west-1 --type runtime']))
    .action(
      action(async (ctx: Context, name: string, value: string, opts: VariableFlags) => {
        const client = await ctx.client();
        const existing: Variable[] = [];
        for await (const v of client.variables.stream()) if (v.name === name) existing.push(v);
        if (existing.length > 1) throw new UsageError(`${existing.length} variables are named ${name}: update one by id with 'chatflow variables update'`);
        const body = { name, value, ...(opts.type ? { type: opts.type } : {}) };
        const target = existing[0];
        if (opts.dryRun) return printDryRun(ctx, target ? 'PUT' : 'POST', target ? `/variables/${target.id}` : '/variables', { body });
        const saved = target ? await client.variables.update(target.id, body) : await client.variables.create(body);
        printNote(`${target ? 'updated' : 'created'} variable ${name}`);
        await ctx.print(saved, { single: true });
      }),
    );

  registerVariablesPromote(group);
}
