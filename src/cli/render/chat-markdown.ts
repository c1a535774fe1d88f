// `chats show --markdown`: one chat as Markdown for a ticket: a heading, then each message under
// its speaker and time, its rating and comment, tools and sources in one line each.
import type { ChatMessage } from '../../client/index.js';
import { sources, toolNames } from './chat-view.js';

const who = (role: string) => (role === 'userMessage' ? 'User' : role === 'apiMessage' ? 'Assistant' : role);

/** The chat's messages (oldest first) as a Markdown document. */
export function chatMarkdown(chatflowId: string, chatId: string, messages: readonly ChatMessage[]): string {
  const out = [`# Chat ${chatId}`, '', `Chatflow ${chatflowId}, ${messages.length} message${messages.length === 1 ? '' : 's'}${messages[0] ? `, from ${messages[0].createdDate} to ${messages.at(-1)!.createdDate}` : ''}.`, ''];
  for (const m of messages) {
    out.push(`### ${who(m.role)} · ${m.createdDate}`, '', (m.content ?? '').trim() || '_(empty)_', '');
    const tools = toolNames(m);
    if (tools.length) out.push(`- Tools: ${tools.join(', ')}`);
    const docs = sources(m);
    if (docs.length) out.push(`- Sources: ${docs.join('; ')}`);
    const fb = m.feedback;
    if (fb?.rating) out.push(`- Rated ${fb.rating === 'THUMBS_UP' ? '▲ up' : fb.rating === 'THUMBS_DOWN' ? '▼ down' : fb.rating}${fb.content ? `: “${fb.content}”` : ''}`);
    if (tools.length || docs.length || fb?.rating) out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
