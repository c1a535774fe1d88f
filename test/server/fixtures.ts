// Data shared by the server tests: unique chatflow ids (tests share one database per file) and a
// small set of messages whose filters each pick a known subset.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { call, ok } from '../helpers/http.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** What the store makes for a message ingested without an id (store/ids.ts). */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MISSING_UUID = '00000000-0000-4000-8000-000000000000';

export const flowId = (label = 'flow') => `${label}-${randomUUID()}`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SeedMessage {
  key: string;
  createdDate: string;
  chatType: string;
  chatId: string;
  sessionId: string;
  memoryType: string | null;
  role: 'userMessage' | 'apiMessage';
}

/** Eight messages of one chatflow; ids are `${prefix}-${key}`. */
export const SEED: readonly SeedMessage[] = [
  { key: 'm1', createdDate: '2024-03-01T08:00:00.000Z', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', memoryType: 'bufferMemory', role: 'userMessage' },
  { key: 'm2', createdDate: '2024-03-01T08:00:01.000Z', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', memoryType: 'bufferMemory', role: 'apiMessage' },
  { key: 'm3', createdDate: '2024-03-05T12:00:00.000Z', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', memoryType: 'zepMemory', role: 'userMessage' },
  { key: 'm4', createdDate: '2024-03-05T12:00:00.500Z', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', memoryType: 'zepMemory', role: 'apiMessage' },
  { key: 'm5', createdDate: '2024-03-10T00:00:00.000Z', chatType: 'INTERNAL', chatId: 'c3', sessionId: 's1', memoryType: 'zepMemory', role: 'userMessage' },
  { key: 'm6', createdDate: '2024-03-10T23:59:59.999Z', chatType: 'EVALUATION', chatId: 'c3', sessionId: 's3', memoryType: 'bufferMemory', role: 'apiMessage' },
  { key: 'm7', createdDate: '2024-03-11T00:00:00.000Z', chatType: 'INTERNAL', chatId: 'c4', sessionId: 's3', memoryType: 'bufferMemory', role: 'userMessage' },
  { key: 'm8', createdDate: '2024-03-20T10:00:00.000Z', chatType: 'EXTERNAL', chatId: 'c4', sessionId: 's2', memoryType: null, role: 'apiMessage' },
];
/** Feedback given to the seed: m2 and m6 thumbs up, m4 thumbs down. */
export const SEED_FEEDBACK = { m2: 'THUMBS_UP', m4: 'THUMBS_DOWN', m6: 'THUMBS_UP' } as const;

export interface Seeded {
  flow: string;
  prefix: string;
  /** The seed keys of a list answer, in order. */
  keys(list: { id: string }[]): string[];
  /** Feedback ids by seed key. */
  feedback: Record<string, string>;
}

/** Ingests the seed into a new chatflow and rates three messages. */
export async function seedMessages(api: string, flow = flowId()): Promise<Seeded> {
  const prefix = randomUUID().slice(0, 8);
  const messages = SEED.map(({ key, ...m }) => ({ ...m, id: `${prefix}-${key}`, content: `content of ${key}` }));
  expect(ok(await call('POST', `${api}/chatmessage/${flow}`, messages))).toEqual({ affected: SEED.length });
  const feedback: Record<string, string> = {};
  for (const [key, rating] of Object.entries(SEED_FEEDBACK)) {
    const created = ok(await call('POST', `${api}/feedback`, { messageId: `${prefix}-${key}`, rating, content: `on ${key}` }));
    feedback[key] = created.id;
  }
  return {
    flow,
    prefix,
    feedback,
    keys: (list) => list.map((m) => m.id.replace(`${prefix}-`, '')),
  };
}
