// `chatflow messages prune`: the messages older than a cut-off, and their feedback, deleted chatflow
// by chatflow through the client's exact delete (one date bound: on Flowise too). The cut-off is
// one instant for the whole run, so a run that deleted everything it counted finds nothing the
// next time, and a message created exactly at the cut-off stays. Where the server's delete takes
// every rating of a chat it touches (Flowise), a chat whose newer messages are rated is left whole
// until those age out too (said, never silent): a nightly prune never unrates a live conversation.
import { ChatflowError, type Chatflow } from '../../client/index.js';
import { chatflowScope } from '../core/chatflow-scope.js';
import type { messages } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { parseWhen, timeZone } from '../base/dates.js';
import { createProgress } from '../base/progress.js';
import { plural } from '../render/text.js';
import { confirmOrRefuse } from '../core/handler-common.js';
import { andRatings, planDelete } from './handlers.js';


const COLUMNS = ['chatflowId', 'name', 'messages'];

export async function prune(ctx: Context, opts: Flags<typeof messages, 'prune'>): Promise<void> {
  const cutoff = parseWhen(opts.olderThan, 'start', '--older-than', timeZone(opts));
  const before = new Date(cutoff).toISOString();
  const client = await ctx.client();
  const flows = await chatflowScope(client, opts);
  // endDate is inclusive: the last millisecond before the cut-off.
  const endDate = new Date(cutoff - 1).toISOString();
  const plans: { flow: Chatflow; plan: Awaited<ReturnType<typeof planDelete>> }[] = [];
  for (const flow of flows) plans.push({ flow, plan: await planDelete(client, flow.id, { endDate }, { spareRatedChats: true }) });
  const total = plans.reduce((n, p) => n + p.plan.matched, 0);
  const ratings = plans.reduce((n, p) => n + p.plan.ratings, 0);
  const spared = plans.flatMap((p) => p.plan.spared);
  if (spared.length) {
    const old = spared.reduce((n, c) => n + c.messages, 0);
    ctx.out.warn(
      `${opts.dryRun ? 'would keep' : 'keeping'} ${plural(old, 'message')} created before ${before} in ${plural(spared.length, 'chat')} whose newer messages are rated ` +
        `(this server, Flowise, deletes every rating of a chat it touches): they are pruned once the chat's rated messages are older than the cut-off too`,
    );
  }
  const counts = (n: (p: (typeof plans)[number]) => number) => plans.map((p) => ({ chatflowId: p.flow.id, name: p.flow.name, messages: n(p) }));

  if (opts.dryRun) {
    await ctx.print(counts((p) => p.plan.matched), { columns: COLUMNS });
    return ctx.out.note(`${plural(total, 'message')}${andRatings(ratings)} created before ${before} would be deleted from ${plural(flows.length, 'chatflow')} (dry run ${await ctx.target()}: nothing deleted)`);
  }
  if (total === 0) return ctx.out.note(`No messages created before ${before} in ${plural(flows.length, 'chatflow')}; nothing was deleted.`);
  if (!opts.yes) {
    for (const { flow, plan } of plans) if (plan.matched) ctx.out.note(`  ${flow.name === flow.id ? flow.id : `${flow.name} (${flow.id})`}: ${plural(plan.matched, 'message')}`);
  }
  const nonEmpty = plans.filter((p) => p.plan.matched > 0).length;
  await confirmOrRefuse(`Delete ${plural(total, 'message')}${andRatings(ratings)} created before ${before} from ${plural(nonEmpty, 'chatflow')}?`, opts.yes, await ctx.target());

  const progress = createProgress({ label: 'prune', unit: 'messages', flag: opts.progress });
  progress.setTotal(total);
  const deleted = new Map<string, number>();
  try {
    for (const { flow, plan } of plans) {
      if (plan.matched === 0) continue;
      try {
        deleted.set(flow.id, (await client.messages.delete(flow.id, plan)).affected);
      } catch (err) {
        // Gone meanwhile (another prune, a delete): nothing left to delete there.
        if (!(err instanceof ChatflowError && err.status === 404)) throw err;
      }
      progress.add(plan.matched);
    }
  } finally {
    progress.done();
  }
  await ctx.print(counts((p) => deleted.get(p.flow.id) ?? 0), { columns: COLUMNS });
  const sum = [...deleted.values()].reduce((a, b) => a + b, 0);
  ctx.out.note(`deleted ${plural(sum, 'message')}${andRatings(ratings)} created before ${before} from ${plural(deleted.size, 'chatflow')}`);
}
