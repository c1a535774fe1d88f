// `chatflow chatflows` handlers.
import type { Chatflow, ChatflowClient } from '../../client/index.js';
import type { Context } from '../core/context.js';
import { EXIT, UserError } from '../base/errors.js';

type Row = Chatflow & { messages?: number };

/**
 * On our service a message list's page carries the total: each chatflow's count for one small
 * request. (Flowise pages no message list: counting there would read every message.)
 */
async function withCounts(client: ChatflowClient, flows: Chatflow[]): Promise<Row[]> {
  if ((await client.server()) !== 'chatflow') return flows;
  return Promise.all(
    flows.map(async (f) => {
      const { total } = await client.messages.list(f.id, { page: 1, limit: 1 });
      return total === undefined ? f : { ...f, messages: total };
    }),
  );
}

export async function list(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const rows = await withCounts(client, await client.chatflows.list());
  await ctx.printList(rows, 'chatflows', rows.some((r) => r.messages !== undefined) ? ['name', 'id', 'messages'] : ['name', 'id']);
}

/** `chatflow` is an id already (a name was looked up by its value set). */
export async function get(ctx: Context, chatflow: string): Promise<void> {
  const client = await ctx.client();
  const flow = (await client.chatflows.list()).find((f) => f.id === chatflow);
  if (!flow) throw new UserError(`chatflow ${chatflow} not found`, EXIT.notFound);
  const [row] = await withCounts(client, [flow]);
  await ctx.print(row!, { single: true });
}
