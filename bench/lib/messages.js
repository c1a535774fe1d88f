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
    artifacts: null,
    reasonContent: null,
    chatType: s % 7 === 0 ? 'EXTERNAL' : 'INTERNAL',
    chatId: `c-${s}`,
    memoryType: 'Buffer Memory',
    sessionId: `s-${s}`,
    leadEmail: null,
    followUpPrompts: null,
    executionId: null,
    createdDate: new Date(start + (i % SESSION) * 1000).toISOString(),
  };
}

/**
 * Chats shaped like real traffic, as `seed-real.sh` seeds a real Flowise (docs/spec/flowise-versions.md
 * 5): chats of SESSION messages 5-90 s apart, starting at random over `days` days (session id = chat
 * id), every message at a millisecond of its own. `n` messages in all, chat after chat (not in date
 * order, as Flowise's rows are stored); the same every run.
 */
export function* realTrafficMessages(n, chatflowid, { days = 60 } = {}) {
  let seed = 38;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const used = new Set();
  for (let i = 0; i < n; i += SESSION) {
    const c = i / SESSION;
    let t = START + Math.floor(rnd() * days * 86_400_000);
    for (let k = 0; k < SESSION && i + k < n; k++) {
      while (used.has(t)) t++;
      used.add(t);
      const m = benchMessage(i + k, chatflowid, 1);
      yield { ...m, chatId: `c-${c}`, sessionId: `c-${c}`, createdDate: new Date(t).toISOString() };
      t += 5000 + Math.floor(rnd() * 85_000);
    }
  }
}
