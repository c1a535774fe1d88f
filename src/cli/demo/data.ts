// Realistic sample data for `chatflow demo`: a few chatflows with sessions of questions and
// answers, tools used, feedback of both ratings, variables, assistants and upsert history.
// Ids are derived from positions, so a second run adds nothing twice.
import type { AssistantCreate, ChatMessageIngest, UpsertHistoryIngest, VariableCreate } from '../../client/index.js';

export const DEMO_CHATFLOWS = ['demo-support-bot', 'demo-sales-assistant', 'demo-docs-qa'] as const;

const QUESTIONS = [
  'How do I reset my password?',
  'What are your opening hours?',
  'Can I change the delivery address of my order?',
  'Do you ship to Norway?',
  'Which plan includes SSO?',
  'How do I export my data?',
  'Why was my card declined?',
  'Is there a student discount?',
];
const ANSWERS = [
  'Open Settings → Security and choose "Reset password"; a link arrives by e-mail within a minute.',
  'We are open Monday to Friday, 8:00–18:00 CET, and on Saturdays until 14:00.',
  'Yes, until the order is packed: open the order and choose "Change address".',
  'We ship to Norway in 3–5 working days; duties are included at checkout.',
  'SSO (SAML and OIDC) is part of the Business and Enterprise plans.',
  'Use Account → Export; you will receive a ZIP with CSV files.',
  'The bank declined the payment; please check the card limit or try another card.',
  'Students get 30% off with a valid university e-mail address.',
];

export const DEMO_VARIABLES: VariableCreate[] = [
  { name: 'OPENAI_MODEL', value: 'gpt-4o-mini', type: 'static' },
  { name: 'SUPPORT_EMAIL', value: 'support@example.com', type: 'static' },
  { name: 'REGION', value: 'eu-west-1', type: 'runtime' },
];

export const DEMO_ASSISTANTS: AssistantCreate[] = [
  {
    details: {
      name: 'Support triage',
      description: 'Answers first-line support questions and escalates the rest',
      model: 'gpt-4o-mini',
      instructions: 'You are a friendly support agent. Answer briefly; escalate billing disputes.',
      temperature: 0.2,
      top_p: 1,
      tools: ['file_search', 'function'],
    },
    credential: 'demo-openai-credential',
    type: 'CUSTOM',
  },
  {
    details: {
      name: 'Data analyst',
      model: 'gpt-4o',
      instructions: 'Analyse uploaded CSV files and explain the findings.',
      temperature: 0.7,
      tools: ['code_interpreter'],
    },
    type: 'CUSTOM',
  },
];

const DAY = 86_400_000;

/**
 * The messages of one chatflow, in batches: `count` messages in question/answer pairs, spread
 * over the 30 days before `end`, a session every 6 messages.
 */
export function* demoMessages(chatflowId: string, count: number, end: number, batchSize = 5000): Generator<ChatMessageIngest[]> {
  const start = end - 30 * DAY;
  const step = Math.max(1, Math.floor((end - start) / Math.max(count, 1)));
  let batch: ChatMessageIngest[] = [];
  for (let i = 0; i < count; i++) {
    const session = Math.floor(i / 6);
    const topic = (session * 7 + Math.floor(i / 2)) % QUESTIONS.length;
    const isAnswer = i % 2 === 1;
    batch.push({
      id: `${chatflowId}-m${i}`,
      role: isAnswer ? 'apiMessage' : 'userMessage',
      content: isAnswer ? ANSWERS[topic]! : QUESTIONS[topic]!,
      chatType: session % 4 === 3 ? 'INTERNAL' : 'EXTERNAL',
      chatId: `${chatflowId}-chat${session}`,
      sessionId: `${chatflowId}-s${session}`,
      memoryType: 'Buffer Memory',
      createdDate: new Date(start + i * step).toISOString(),
      ...(isAnswer && topic % 3 === 0 ? { usedTools: [{ tool: 'knowledge_base', toolInput: { query: QUESTIONS[topic] }, toolOutput: 'found 3 articles' }] } : {}),
      ...(isAnswer ? { sourceDocuments: [{ pageContent: ANSWERS[topic]!.slice(0, 40), metadata: { source: `kb/article-${topic}.md` } }] } : {}),
    });
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** Every answer whose index is a multiple of 5 gets a rating: mostly up, every third down. */
export function demoRatings(chatflowId: string, count: number): { messageId: string; rating: 'THUMBS_UP' | 'THUMBS_DOWN'; content?: string }[] {
  const out: { messageId: string; rating: 'THUMBS_UP' | 'THUMBS_DOWN'; content?: string }[] = [];
  for (let i = 1, n = 0; i < Math.min(count, 400); i += 10, n++) {
    const down = n % 3 === 2;
    out.push({ messageId: `${chatflowId}-m${i}`, rating: down ? 'THUMBS_DOWN' : 'THUMBS_UP', ...(down ? { content: 'did not answer my question' } : {}) });
  }
  return out;
}

export function demoUpserts(chatflowId: string, end: number): UpsertHistoryIngest[] {
  return [0, 1, 2].map((i) => ({
    id: `${chatflowId}-u${i}`,
    date: new Date(end - (20 - i * 7) * DAY).toISOString(),
    result: { numAdded: 12 + i, numUpdated: i, numSkipped: 0, numDeleted: 0 },
    flowData: JSON.stringify({ nodes: [{ id: 'pdfFile_0' }, { id: 'openAIEmbeddings_0' }, { id: 'memoryVectorStore_0' }] }),
  }));
}
