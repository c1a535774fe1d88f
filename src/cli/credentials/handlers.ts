// `chatflow credentials` handlers.
import type { Context } from '../core/context.js';
import { CREDENTIAL_TABLE } from '../render/views.js';

/** Flowise's credentials; our service keeps none (an assistant's --credential is stored as given there). */
export async function list(ctx: Context): Promise<void> {
  const client = await ctx.client();
  if ((await client.server()) === 'chatflow') {
    await ctx.printList([], 'credentials', CREDENTIAL_TABLE);
    return ctx.out.note("this server (chatflow's own service) keeps no credentials: an assistant's --credential is stored as given");
  }
  await ctx.printList(await client.credentials.list(), 'credentials', CREDENTIAL_TABLE);
}
