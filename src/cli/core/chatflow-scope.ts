// Which chatflows a command over many of them acts on: `--chatflow ID|NAME` (repeatable; its
// value set has already made each an id, ../base/names.ts) or `--all-chatflows` (every chatflow the
// server lists). Names come from the server's list where it keeps them, for the reports.
import { ChatflowError, type Chatflow, type ChatflowClient } from '../../client/index.js';
import { UsageError } from '../base/errors.js';
import type { ScopeFlags } from './flags.js';

/** `all`: neither flag means every chatflow (a search); else one of them must be given (a prune). */
export async function chatflowScope(client: ChatflowClient, flags: ScopeFlags, opts: { all?: boolean } = {}): Promise<Chatflow[]> {
  const given = [...new Set(flags.chatflow ?? [])];
  if (flags.allChatflows && given.length) throw new UsageError('give --chatflow or --all-chatflows, not both');
  if (opts.all && !given.length) return client.chatflows.list();
  if (!flags.allChatflows && !given.length) throw new UsageError('say which chatflows: --chatflow ID|NAME (repeatable) or --all-chatflows');
  if (flags.allChatflows) return client.chatflows.list();
  let listed: Chatflow[] = [];
  try {
    listed = await client.chatflows.list();
  } catch (err) {
    // A server that lists no chatflows: the ids as given, without names.
    if (!(err instanceof ChatflowError && (err.kind === 'unsupported' || err.status === 404))) throw err;
  }
  return given.map((id) => listed.find((c) => c.id === id) ?? { id, name: id });
}
