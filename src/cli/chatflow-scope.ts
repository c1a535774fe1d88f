// Which chatflows a command over many of them acts on: `--chatflow ID|NAME` (repeatable) or
// `--all-chatflows` (every chatflow the server lists). A name is looked up in the server's list;
// a value that is neither a listed id nor a name is taken as an id (on our service a chatflow is
// just an id, listed only once it holds data).
import type { Chatflow, ChatflowClient } from '../client/index.js';
import type { FlagDef } from './core/command.js';
import { UsageError } from './core/errors.js';
import { CHATFLOW } from './core/values.js';

export interface ScopeFlags {
  chatflow?: string[];
  allChatflows?: boolean;
}

export const SCOPE_FLAGS: FlagDef[] = [
  { flags: '--chatflow <id|name>', help: 'a chatflow, by id or name (repeatable)', values: CHATFLOW, repeatable: true },
  { flags: '--all-chatflows', help: 'every chatflow the server lists' },
];

export async function chatflowScope(client: ChatflowClient, flags: ScopeFlags): Promise<Chatflow[]> {
  const given = flags.chatflow ?? [];
  if (flags.allChatflows && given.length) throw new UsageError('give --chatflow or --all-chatflows, not both');
  if (!flags.allChatflows && !given.length) throw new UsageError('say which chatflows: --chatflow ID|NAME (repeatable) or --all-chatflows');
  const listed = await client.chatflows.list();
  if (flags.allChatflows) return listed;
  const picked = new Map<string, Chatflow>();
  for (const text of given) {
    const byId = listed.find((c) => c.id === text);
    const byName = listed.filter((c) => c.name === text);
    if (!byId && byName.length > 1) throw new UsageError(`--chatflow ${text}: ${byName.length} chatflows have that name; give the id (${byName.map((c) => c.id).join(', ')})`);
    const flow = byId ?? byName[0] ?? { id: text, name: text };
    picked.set(flow.id, flow);
  }
  return [...picked.values()];
}
