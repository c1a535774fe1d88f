// The benchmarks' chat messages: sessions of SESSION messages, one a second, spread over the year
// from START; 85% INTERNAL; a support conversation's words.
import { randomUUID } from 'node:crypto';

export const SESSION = 10;
export const START = Date.UTC(2025, 0, 1);

/**
 * Message `i` of a chatflow of `sessionCount` sessions. Ids are random UUIDv4 as Flowise makes them
 * (`ids: 'uuid'`), or `<prefix>00000000`… in order (`ids: 'sequential'`).
 */
export function benchMessage(i, chatflowid, sessionCount, { ids = 'uuid', prefix = 'm' } = {}) {
  const s = Math.floor(i / SESSION);
  const start = START + Math.floor((s * 365 * 86_400_000) / sessionCount);
  return {
    id: ids === 'uuid' ? randomUUID() : `${prefix}${String(i).padStart(8, '0')}`,
    role: i % 2 ? 'apiMessage' : 'userMessage',
    chatflowid,
    content: i % 2
      ? `Answer ${i}: open Settings → Security and choose "Reset password"; a link arrives by e-mail within a minute.`
      : `Question ${i}: how do I reset my password?`,
    sourceDocuments: null,
    usedTools: i % 20 === 1 ? [{ tool: 'search', toolInput: { q: 'reset password' }, toolOutput: 'kb#12' }] : null,
    fileAnnotations: null,
    agentReasoning: null,
    fileUploads: null,
    action: null,
    chatType: s % 7 === 0 ? 'EXTERNAL' : 'INTERNAL',
    chatId: `c-${s}`,
    memoryType: 'Buffer Memory',
    sessionId: `s-${s}`,
    leadEmail: null,
    createdDate: new Date(start + (i % SESSION) * 1000).toISOString(),
  };
}
