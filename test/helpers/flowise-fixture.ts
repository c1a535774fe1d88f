// A stand-in for a real Flowise 3.1.2 server, answering with the shapes recorded in
// docs/spec/flowise-observed.md: 401 `{"error":"Unauthorized Access"}`, 403 `{"message":"Forbidden"}`,
// the UI's index.html with 200 for any route Flowise lacks, a plain-text 404 from PUT /variables,
// `details` as a JSON string, `{"raw":[],"affected":N}` deletes, `{"status":"OK"}` from PUT /feedback,
// compact one-line JSON, service errors as 500 `Error: xxxService.fn - ...`, `{data,total}` pages.
// Plain node:http, in memory, fresh data on every start.
//
// Chat messages and feedback as section 4 of docs/spec/flowise-observed.md records them: dates kept as SQLite
// text (seeded rows and column defaults without milliseconds) and compared as text with the bound
// rendered `YYYY-MM-DD HH:MM:SS.SSS` (a plain date is midnight, an unreadable one ignored); lone
// bounds ignored by the feedback list and by DELETE with chatId; DELETE without chatId ignoring
// memoryType, and with feedbackType removing the message before each rated one; `feedback=` (any
// value, `false` too) answering every message with a `feedback` property, paged by session;
// page/limit ignored otherwise; only the exact `DESC` descending; chatType case-sensitive; 500
// "Unauthorized access" from GET /chatmessage for a chatflow it does not know.
//
// Versions (docs/spec/flowise-versions.md): `startFlowiseFixture({ version: '3.1.4' })` answers as 3.1.3+ does
// where they differ: GET /upsert-history without a chatflow 400 "chatflow id is required!", of an
// unknown chatflow 404, of a non-UUID 400, and a PATCH naming an unknown id 404 deleting nothing of
// the batch. Every version: a DELETE of messages takes every feedback of each chat it touches;
// session pages (`feedback=…&page&limit`) come in the order of each session's last message
// (`ORDER BY MAX(createdDate)`) and leave out messages without a session; `feedbackType` drops every
// message without a session and adds the question before each rated answer; dates compared as
// SQLite compares text, ties in stored order (newest first too). `msPerRow` and `msPerScannedRow` model the cost of
// an answer (its first byte only once the whole list is built): what it returns plus a scan of the
// chatflow's rows (docs/spec/flowise-versions.md 5).
//
// Test controls (not Flowise behaviour): `failNext(path, status, count)` makes the next requests to a
// path answer that status; any path below `/api/v1/__hang` never answers; `requests` logs every
// request received; `seed(name, data)` adds a chatflow with messages and feedback, as the observed
// server was filled by SQL inserts (its id a UUID made from the name, as Flowise's ids are UUIDs:
// `idOf(name)`); `addCredential(name, kind)` adds a credential.
import http from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const CHATFLOW_A = 'f5c2165a-0a38-40a9-bfa2-6cd73fbb65a2';
export const CHATFLOW_B = 'c3855e34-2c0b-4e77-8e07-693995a50ad0';

// ---- credentials: as GET /api/v1/credentials answers them, with the secret a
// credentialName filter would include (the CLI must never ask for it, nor show it).
export const CREDENTIAL_SECRET = 'enc-U2FsdGVkX1-never-shown';
export const CREDENTIALS = [
  { id: 'cccccccc-0000-0000-0000-000000000001', name: 'OpenAI main', credentialName: 'openAIApi', encryptedData: CREDENTIAL_SECRET, createdDate: '2026-11-21T14:24:10.000Z', updatedDate: '2026-11-21T14:24:10.000Z', workspaceId: '6e3bc68d-7177-4119-8e5b-fdd5780b8553' },
  { id: 'dddddddd-0000-0000-0000-000000000002', name: 'Anthropic', credentialName: 'anthropicApi', encryptedData: CREDENTIAL_SECRET, createdDate: '2026-11-21T14:24:11.000Z', updatedDate: '2026-11-21T14:24:11.000Z', workspaceId: '6e3bc68d-7177-4119-8e5b-fdd5780b8553' },
];
// ---- end credentials
const WORKSPACE = '6e3bc68d-7177-4119-8e5b-fdd5780b8553';

export interface FixtureRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  /** Rows of a list answered, once it is. */
  rows?: number;
}

/** A message or feedback row to seed: `createdDate` an ISO instant; `ms` stores it with milliseconds. */
export type SeedRow = Record<string, unknown> & { id: string; createdDate: string; ms?: boolean };

export interface FixtureOptions {
  /** The Flowise version answered by GET /version and followed where versions differ; default 3.1.2. */
  version?: string;
  /** Milliseconds an answered row of GET /chatmessage costs before the first byte (0: none). */
  msPerRow?: number;
  /**
   * Milliseconds each row of the chatflow costs every GET /chatmessage (its scan: Flowise indexes
   * `chatflowid`, not `createdDate`; a session page scans twice, to group and to select).
   */
  msPerScannedRow?: number;
  /**
   * PostgreSQL behind it (docs/spec/flowise-versions.md 4): a chatflow id that is no UUID, or a date it cannot
   * read, reaches the database and is a 500 `invalid input syntax for type …`.
   */
  postgres?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A seeded chatflow's id: the name when it is a UUID, else a UUID made from it. */
export function fixtureChatflowId(name: string): string {
  if (UUID.test(name)) return name;
  const h = createHash('sha1').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface FlowiseFixture {
  /** Server root, e.g. `http://127.0.0.1:40123` (no /api/v1). */
  url: string;
  /** The full-permission key. */
  apiKey: string;
  /** A key with only chatflows:view and variables:view (403 elsewhere). */
  readOnlyKey: string;
  requests: FixtureRequest[];
  /** The most requests it was answering at once since the last call (then counted afresh). */
  takeMaxInFlight(): number;
  failNext(path: string, status: number, count?: number): void;
  /** Adds chatflow `name` (made if new; its id `idOf(name)`) with messages and feedback. */
  seed(name: string, data: { messages: SeedRow[]; feedback?: SeedRow[]; upserts?: Row[] }): void;
  idOf(name: string): string;
  /** Adds a credential, as one made in Flowise's UI; answers its id. */
  addCredential(name: string, credentialName: string): string;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

const INDEX_HTML = `<!DOCTYPE html>
<html lang="en">
    <head>
        <title>Flowise - Build AI Agents, Visually</title>
        <link rel="icon" href="favicon.ico" />
        <meta charset="utf-8" />
    </head>
    <body><div id="root"></div></body>
</html>
`;

const iso = (s: string) => new Date(s).toISOString();
/** How SQLite holds a date: written by Flowise with milliseconds, by a column default or an INSERT without. */
const stored = (isoDate: string, ms = false) => iso(isoDate).replace('T', ' ').slice(0, ms ? 23 : 19);
/** A filter bound as TypeORM renders `new Date(param)` for SQLite; undefined when it is no date. */
const bound = (param: string | null): string | undefined => {
  if (!param) return undefined;
  const d = new Date(param);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().replace('T', ' ').slice(0, 23);
};
/** A stored date as answered. */
const answered = (text: unknown) => `${String(text).replace(' ', 'T').slice(0, 19)}${String(text).slice(19, 23) || '.000'}Z`;
const out = (row: Row): Row => ({ ...row, createdDate: answered(row.createdDate) });

function seed() {
  const msg = (n: number, role: string, flow: string, content: string, date: string, chatType: string, chat: string, memoryType: string | null, extra: Row = {}): Row => ({
    id: `aaaaaaaa-0000-0000-0000-00000000000${n}`,
    role,
    chatflowid: flow,
    executionId: null,
    content,
    sourceDocuments: null,
    usedTools: null,
    fileAnnotations: null,
    agentReasoning: null,
    reasonContent: null,
    fileUploads: null,
    artifacts: null,
    action: null,
    chatType,
    chatId: chat,
    memoryType,
    sessionId: chat.replace('c', 's'),
    createdDate: stored(date),
    leadEmail: null,
    followUpPrompts: null,
    execution: null,
    ...extra,
  });
  return {
    chatflows: [
      { id: CHATFLOW_A, name: 'peer-flow-A', flowData: '{"nodes":[],"edges":[]}', deployed: null, isPublic: null, apikeyid: null, chatbotConfig: null, apiConfig: null, analytic: null, speechToText: null, textToSpeech: null, followUpPrompts: null, category: null, type: 'CHATFLOW', createdDate: '2026-11-21T14:24:16.000Z', updatedDate: '2026-11-21T14:24:16.000Z', workspaceId: WORKSPACE },
      { id: CHATFLOW_B, name: 'peer-flow-B', flowData: '{"nodes":[],"edges":[]}', deployed: null, isPublic: null, apikeyid: null, chatbotConfig: null, apiConfig: null, analytic: null, speechToText: null, textToSpeech: null, followUpPrompts: null, category: null, type: 'CHATFLOW', createdDate: '2026-11-21T14:24:16.000Z', updatedDate: '2026-11-21T14:24:16.000Z', workspaceId: WORKSPACE },
    ] as Row[],
    variables: [
      { id: '55d998ca-110f-4871-9aba-053d42441db7', name: 'v_static', value: 'hello', type: 'static', createdDate: '2026-11-21T14:24:17.000Z', updatedDate: '2026-11-21T14:24:17.000Z', workspaceId: WORKSPACE },
      { id: '50277c7f-8612-4b60-a70b-b70ef5af9641', name: 'v_runtime', value: '', type: 'runtime', createdDate: '2026-11-21T14:24:18.000Z', updatedDate: '2026-11-21T14:24:18.000Z', workspaceId: WORKSPACE },
      { id: 'af71d4dc-c114-4fff-b822-d0c9fc86621e', name: 'v_notype', value: 'abc', type: 'string', createdDate: '2026-11-21T14:24:18.000Z', updatedDate: '2026-11-21T14:24:18.000Z', workspaceId: WORKSPACE },
    ] as Row[],
    messages: [
      msg(1, 'userMessage', CHATFLOW_A, 'hi (c1)', '2026-01-10T12:00:00Z', 'INTERNAL', 'c1', 'Buffer Memory'),
      msg(2, 'apiMessage', CHATFLOW_A, 'hello (c1)', '2026-01-10T12:00:05Z', 'INTERNAL', 'c1', 'Buffer Memory'),
      msg(3, 'userMessage', CHATFLOW_A, 'question (c2)', '2026-02-15T12:00:00Z', 'EXTERNAL', 'c2', null),
      msg(4, 'apiMessage', CHATFLOW_A, 'answer (c2)', '2026-02-15T12:00:05Z', 'EXTERNAL', 'c2', null),
      msg(5, 'userMessage', CHATFLOW_A, 'question (c3)', '2026-03-20T12:00:00Z', 'EXTERNAL', 'c3', 'Buffer Memory'),
      msg(6, 'apiMessage', CHATFLOW_A, 'answer (c3)', '2026-03-20T12:00:05Z', 'EXTERNAL', 'c3', 'Buffer Memory'),
      msg(7, 'userMessage', CHATFLOW_B, 'other flow', '2026-02-01T00:00:00Z', 'INTERNAL', 'cb', 'Buffer Memory'),
      // As older Flowise versions answer: structured columns left as strings holding JSON.
      msg(8, 'apiMessage', CHATFLOW_B, 'other answer', '2026-02-01T00:00:05Z', 'INTERNAL', 'cb', 'Buffer Memory', {
        usedTools: '[{"tool":"calculator","toolInput":{"x":"1+1"},"toolOutput":"2"}]',
        sourceDocuments: '[{"pageContent":"doc","metadata":{}}]',
      }),
    ] as Row[],
    feedback: [
      { id: 'abb94aa9-af7a-43fe-a337-7998f6380f58', chatflowid: CHATFLOW_A, chatId: 'c1', messageId: 'aaaaaaaa-0000-0000-0000-000000000002', rating: 'THUMBS_UP', content: 'great', createdDate: '2026-11-21 14:24:22' },
      { id: '261cbaf5-eec9-4d2e-bc4f-e2778a616075', chatflowid: CHATFLOW_A, chatId: 'c2', messageId: 'aaaaaaaa-0000-0000-0000-000000000004', rating: 'THUMBS_DOWN', content: null, createdDate: '2026-11-21 14:24:23' },
    ] as Row[],
    // Stored as text, answered parsed (as Flowise does).
    upserts: [
      { id: 'bbbbbbbb-0000-0000-0000-000000000001', chatflowid: CHATFLOW_A, result: '{"numAdded":1}', flowData: '{"nodes":[]}', date: '2026-01-05T00:00:00.000Z' },
      { id: 'bbbbbbbb-0000-0000-0000-000000000002', chatflowid: CHATFLOW_A, result: '{"numAdded":2}', flowData: '{"nodes":[]}', date: '2026-02-05T00:00:00.000Z' },
      { id: 'bbbbbbbb-0000-0000-0000-000000000003', chatflowid: CHATFLOW_A, result: '', flowData: '', date: '2026-03-05T00:00:00.000Z' },
      { id: 'bbbbbbbb-0000-0000-0000-000000000004', chatflowid: CHATFLOW_B, result: '{"numAdded":4}', flowData: '{"nodes":[]}', date: '2026-02-10T00:00:00.000Z' },
    ] as Row[],
    // What Flowise keeps of each credential, its secret included (see CREDENTIALS).
    credentials: CREDENTIALS.map((c) => ({ ...c })) as Row[],
    assistants: [
      { id: 'c151b0b4-591e-4fe9-b1ff-a9838b0e6095', details: '{"name":"asst-one","instruction":"be helpful","chatModel":{},"tools":[]}', credential: 'cccccccc-0000-0000-0000-000000000001', iconSrc: null, type: 'CUSTOM', createdDate: '2026-11-21T14:24:30.000Z', updatedDate: '2026-11-21T14:24:30.000Z', workspaceId: WORKSPACE },
    ] as Row[],
  };
}

class Reply {
  /** Rows of a list answered (its cost, with msPerRow). */
  rows = 0;
  /** Rows scanned to answer it (its cost, with msPerScannedRow). */
  scanned = 0;
  constructor(
    readonly status: number,
    readonly body: string,
    readonly contentType = 'application/json; charset=utf-8',
  ) {}
}
const json = (body: unknown, status = 200) => new Reply(status, JSON.stringify(body));
const flowiseError = (status: number, message: string) => json({ statusCode: status, success: false, message, stack: {} }, status);
const html = () => new Reply(200, INDEX_HTML, 'text/html; charset=UTF-8');
const deleted = (affected: number) => json({ raw: [], affected });

const nowIso = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

/** 3.1.3 or later (where the versions differ). */
const newer = (version: string) => {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  return a * 1e6 + b * 1e3 + c >= 3_001_003;
};

export async function startFlowiseFixture(opts: FixtureOptions = {}): Promise<FlowiseFixture> {
  const version = opts.version ?? '3.1.2';
  const apiKey = `fx-full-${randomUUID()}`;
  const readOnlyKey = `fx-ro-${randomUUID()}`;
  const db = seed();
  const requests: FixtureRequest[] = [];
  const failures = new Map<string, { status: number; count: number }>();
  /** Bumped by every change of messages or feedback: a kept selection is then stale. */
  let generation = 0;
  const selections = new Map<string, { rows: Row[]; groups: unknown[]; bySession: Map<unknown, Row[]> }>();
  const byDateOf = new Map<string, { generation: number; rows: Row[] }>();

  const route = (method: string, pathname: string, q: URLSearchParams, body: unknown, key: string | undefined): Reply => {
    const parts = pathname.slice('/api/v1/'.length).split('/').map(decodeURIComponent);
    const [resource, id] = parts;
    const b = (body ?? {}) as Row;
    const readOnly = key === readOnlyKey;

    if (resource === 'ping' && method === 'GET') return new Reply(200, 'pong', 'text/html; charset=utf-8');
    if (resource === 'version' && method === 'GET') return json({ version });

    if (resource === 'variables') {
      if (readOnly && method !== 'GET') return json({ message: 'Forbidden' }, 403);
      if (method === 'GET' && id === undefined) {
        const sorted = [...db.variables].sort((x, y) => String(y.updatedDate).localeCompare(String(x.updatedDate)));
        const page = Number.parseInt(q.get('page') ?? '', 10);
        const limit = Number.parseInt(q.get('limit') ?? '', 10);
        if (page < 0) return flowiseError(412, 'Error: page cannot be negative!');
        if (limit < 0) return flowiseError(412, 'Error: limit cannot be negative!');
        if (page > 0 && limit > 0) return json({ data: sorted.slice((page - 1) * limit, page * limit), total: sorted.length });
        return json(sorted);
      }
      if (method === 'POST' && id === undefined) {
        if (b.name == null) return flowiseError(500, 'Error: variablesServices.createVariable - SQLITE_CONSTRAINT: NOT NULL constraint failed: variable.name');
        if (b.value == null) return flowiseError(500, 'Error: variablesServices.createVariable - SQLITE_CONSTRAINT: NOT NULL constraint failed: variable.value');
        const now = nowIso();
        const row = { name: b.name, value: b.value, type: b.type ?? 'string', workspaceId: WORKSPACE, id: randomUUID(), createdDate: now, updatedDate: now };
        db.variables.push({ ...row, value: String(b.value) });
        return json(row); // a numeric value is echoed as a number
      }
      if ((method === 'PUT' || method === 'DELETE') && id === undefined) {
        const fn = method === 'PUT' ? 'updateVariable' : 'deleteVariable';
        return flowiseError(412, `Error: variablesController.${fn} - id not provided!`);
      }
      if (method === 'PUT') {
        const row = db.variables.find((v) => v.id === id);
        if (!row) return new Reply(404, 'Variable not found in the database', 'text/html; charset=utf-8');
        for (const k of ['name', 'value', 'type'] as const) if (k in b) row[k] = b[k];
        row.updatedDate = nowIso();
        return json(row);
      }
      if (method === 'DELETE') {
        const before = db.variables.length;
        db.variables = db.variables.filter((v) => v.id !== id);
        return deleted(before - db.variables.length);
      }
    }

    if (resource === 'feedback') {
      if (method === 'GET') {
        if (id === undefined) return flowiseError(412, 'Error: feedbackController.getAllChatMessageFeedback - id not provided!');
        let rows = db.feedback.filter((f) => f.chatflowid === id);
        const chatId = q.get('chatId');
        if (chatId) rows = rows.filter((f) => f.chatId === chatId);
        // Only a pair of bounds filters (Between); unreadable ones then match nothing.
        if (q.get('startDate') && q.get('endDate')) {
          const [start, end] = [bound(q.get('startDate')), bound(q.get('endDate'))];
          rows = start && end ? rows.filter((f) => String(f.createdDate) >= start && String(f.createdDate) <= end) : [];
        }
        rows.sort((x, y) => String(x.createdDate).localeCompare(String(y.createdDate)));
        if (q.get('order') === 'DESC') rows.reverse();
        return json(rows.map(out));
      }
      if (method === 'POST') {
        if (!b.messageId) return flowiseError(400, 'Message ID is required');
        const m = db.messages.find((x) => x.id === b.messageId);
        if (!m) return flowiseError(404, `Message with ID ${String(b.messageId)} not found`);
        if (b.chatId && b.chatId !== m.chatId) return flowiseError(400, `Inconsistent chat ID: message with ID ${String(m.id)} does not belong to chat with ID ${String(b.chatId)}`);
        if (b.chatflowid && b.chatflowid !== m.chatflowid) return flowiseError(400, `Inconsistent chatflow ID: message with ID ${String(m.id)} does not belong to chatflow with ID ${String(b.chatflowid)}`);
        if (b.rating == null) return flowiseError(500, 'Error: feedbackService.createChatMessageFeedbackForChatflow - SQLITE_CONSTRAINT: NOT NULL constraint failed: chat_message_feedback.rating');
        const row = { chatflowid: m.chatflowid, chatId: m.chatId, messageId: m.id, rating: b.rating, content: b.content ?? null, id: randomUUID(), createdDate: stored(nowIso()) };
        db.feedback.push(row);
        generation++;
        return json(out(row));
      }
      if (method === 'PUT') {
        if (id === undefined) return flowiseError(412, 'Error: feedbackController.updateChatMessageFeedbackForChatflow - id not provided!');
        const row = db.feedback.find((f) => f.id === id);
        if (!row) return flowiseError(404, `Feedback with ID ${id} not found`);
        for (const k of ['rating', 'content'] as const) if (k in b) row[k] = b[k];
        generation++;
        return json({ status: 'OK' });
      }
    }

    if (resource === 'assistants') {
      if (readOnly) return json({ message: 'Forbidden' }, 403);
      const out = (a: Row) => a; // details stays a JSON string, as Flowise answers it
      const notFound = (fn: string) => flowiseError(500, `Error: assistantsService.${fn} - Assistant ${String(id)} not found`);
      if (method === 'GET' && id === undefined) {
        const type = q.get('type');
        return json(db.assistants.filter((a) => !type || a.type === type).map(out));
      }
      if (method === 'GET') {
        const row = db.assistants.find((a) => a.id === id);
        return row ? json(out(row)) : notFound('getAssistantById');
      }
      if (method === 'POST') {
        if (b.details === undefined) return flowiseError(500, 'Error: assistantsService.createAssistant - Invalid request body');
        if (typeof b.details !== 'string') return flowiseError(500, 'Error: assistantsService.createAssistant - "[object Object]" is not valid JSON');
        try {
          JSON.parse(b.details);
        } catch (err) {
          return flowiseError(500, `Error: assistantsService.createAssistant - ${(err as Error).message}`);
        }
        if (b.type !== 'CUSTOM' && !db.credentials.some((c) => c.id === b.credential)) return flowiseError(500, `Error: assistantsService.createAssistant - Error creating new assistant - Credential ${String(b.credential)} not found`);
        if (b.credential == null) return flowiseError(500, 'Error: assistantsService.createAssistant - SQLITE_CONSTRAINT: NOT NULL constraint failed: assistant.credential');
        const now = nowIso();
        const row = { details: b.details, credential: b.credential, iconSrc: b.iconSrc ?? null, type: b.type, workspaceId: WORKSPACE, id: randomUUID(), createdDate: now, updatedDate: now };
        db.assistants.push(row);
        return json(row);
      }
      if (id === undefined) return flowiseError(412, `Error: assistantsController.${method === 'PUT' ? 'updateAssistant' : 'deleteAssistant'} - id not provided!`);
      if (method === 'PUT') {
        const row = db.assistants.find((a) => a.id === id);
        if (!row) return notFound('updateAssistant');
        if ('details' in b) {
          if (!b.details) return flowiseError(500, 'Error: assistantsService.updateAssistant - Details cannot be empty');
          let d: Row;
          try {
            d = JSON.parse(String(b.details)) as Row;
          } catch {
            return flowiseError(500, 'Error: assistantsService.updateAssistant - Details must be valid JSON');
          }
          if (!d.name) return flowiseError(500, 'Error: assistantsService.updateAssistant - Details must include a name field');
          row.details = b.details;
        }
        for (const k of ['credential', 'iconSrc'] as const) if (k in b) row[k] = b[k];
        row.updatedDate = nowIso();
        return json(out(row));
      }
      if (method === 'DELETE') {
        const before = db.assistants.length;
        db.assistants = db.assistants.filter((a) => a.id !== id);
        return before === db.assistants.length ? notFound('deleteAssistant') : deleted(1);
      }
    }

    if (opts.postgres && (resource === 'chatmessage' || resource === 'feedback' || resource === 'upsert-history') && method === 'GET' && id !== undefined) {
      if (!UUID.test(id)) return flowiseError(500, `Error: chatMessagesService.getAllChatMessages - invalid input syntax for type uuid: "${id}"`);
      for (const k of ['startDate', 'endDate']) {
        if (q.get(k) && Number.isNaN(new Date(q.get(k)!).getTime())) return flowiseError(500, 'invalid input syntax for type timestamp: "0NaN-NaN-NaNTNaN:NaN:NaN.NaN+NaN:NaN"');
      }
    }

    if (resource === 'chatmessage' && (method === 'GET' || method === 'DELETE')) {
      if (id === undefined) {
        const fn = method === 'GET' ? 'chatMessageController.getAllChatMessages' : 'chatMessagesController.removeAllChatMessages';
        return flowiseError(412, `Error: ${fn} - id not provided!`);
      }
      if (!db.chatflows.some((c) => c.id === id)) {
        return method === 'GET'
          ? flowiseError(500, 'Error: chatMessagesService.getAllChatMessages - Unauthorized access')
          : flowiseError(404, `Chatflow ${id} not found in the database!`);
      }
      const chatTypes = q.getAll('chatType').flatMap((t) => (t.startsWith('[') ? (JSON.parse(t) as string[]) : [t]));
      const [start, end] = [bound(q.get('startDate')), bound(q.get('endDate'))];
      const ratings = (() => {
        const given = q.getAll('feedbackType').flatMap((t) => (t.startsWith('[') ? (JSON.parse(t) as string[]) : [t]));
        const known = ['THUMBS_UP', 'THUMBS_DOWN'].filter((r) => given.includes(r));
        return known.length ? known : undefined; // an unknown value means no filter
      })();
      const exact = (keys: readonly string[]) => (m: Row) =>
        m.chatflowid === id &&
        (chatTypes.length === 0 || chatTypes.includes(String(m.chatType))) &&
        keys.every((k) => !q.get(k) || m[k] === q.get(k));
      const inRange = (m: Row) => (!start || String(m.createdDate) >= start) && (!end || String(m.createdDate) <= end);
      // As SQLite compares text (BINARY): `… 12:00:00` before `… 12:00:00.000`; ties as stored.
      const byDate = (x: Row, y: Row) => (String(x.createdDate) < String(y.createdDate) ? -1 : String(x.createdDate) > String(y.createdDate) ? 1 : 0);
      const feedbackOf = (m: Row) => db.feedback.find((f) => f.messageId === m.id) ?? null;
      /**
       * With feedbackType: messages rated otherwise dropped (in SQL), then by session, each rated
       * apiMessage and the message just before it in its session; messages without a session are
       * skipped (`filterMessagesWithFeedback`).
       */
      const ratedPairs = (all: Row[]) => {
        const keep = new Set<unknown>();
        const rows = all.filter((m) => !feedbackOf(m) || ratings!.includes(String(feedbackOf(m)!.rating)));
        rows.forEach((m, i) => {
          if (m.sessionId == null || m.role !== 'apiMessage' || !ratings!.includes(String(feedbackOf(m)?.rating))) return;
          keep.add(m.id);
          const before = rows.slice(0, i).reverse().find((p) => p.sessionId === m.sessionId);
          if (before) keep.add(before.id);
        });
        return rows.filter((m) => keep.has(m.id));
      };
      if (method === 'DELETE') {
        let gone: Row[];
        if (q.get('chatId')) {
          gone = db.messages.filter(exact(['chatId', 'memoryType', 'sessionId'])).filter((m) => !(q.get('startDate') && q.get('endDate')) || (start && end && inRange(m)));
        } else {
          // The GET selection without memoryType; feedbackType switches to the feedback query.
          gone = db.messages.filter(exact(['sessionId'])).filter(inRange).sort(byDate);
          if (ratings) gone = ratedPairs(gone);
        }
        const ids = new Set(gone.map((m) => m.id));
        generation++;
        db.messages = db.messages.filter((m) => !ids.has(m.id));
        // Every feedback of each chat touched, on kept messages too (`delete({ chatId })`, docs/spec/flowise-versions.md 1).
        const chats = new Set(gone.map((m) => m.chatId));
        db.feedback = db.feedback.filter((f) => !chats.has(f.chatId));
        return deleted(ids.size);
      }
      const page = Number.parseInt(q.get('page') ?? '', 10);
      const limit = Number.parseInt(q.get('limit') ?? '', 10);
      const paged = Boolean(q.get('feedback')) && page > 0 && limit > 0 && !q.get('sessionId') && !q.get('messageId');
      // The selection and its session groups, kept until the data changes (as a database's indexes
      // make each page cost what it holds).
      const key = `${generation} ${id} ${[...q.entries()].filter(([k]) => k !== 'page' && k !== 'limit').join('&')}`;
      let selection = selections.get(key);
      if (!selection) {
        // The chatflow's rows by date (kept until the data changes), the range found by halving: the
        // fixture's own work stays what an answer holds (its modelled cost is msPerScannedRow).
        let sorted = byDateOf.get(id);
        if (!sorted || sorted.generation !== generation) byDateOf.set(id, (sorted = { generation, rows: db.messages.filter((m) => m.chatflowid === id).sort(byDate) }));
        const first = (bound: string, after: boolean) => {
          let [lo, hi] = [0, sorted!.rows.length];
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            const text = String(sorted!.rows[mid]!.createdDate);
            if (after ? text <= bound : text < bound) lo = mid + 1;
            else hi = mid;
          }
          return lo;
        };
        const range = sorted.rows.slice(start ? first(start, false) : 0, end ? first(end, true) : sorted.rows.length);
        let all = range.filter(exact(['chatId', 'memoryType', 'sessionId'])).filter((m) => !q.get('messageId') || m.id === q.get('messageId'));
        // Any value of `feedback`, even `false`, switches to the feedback query (a Flowise bug).
        if (q.get('feedback') && ratings) all = ratedPairs(all);
        selection = { rows: all, groups: [], bySession: new Map() };
        if (paged) {
          // Pages of sessions, not of messages: grouped by sessionId (NULL a group of its own) in the
          // order of each group's last message; its messages then by `sessionId IN (…)`, which never
          // matches NULL.
          const last = new Map<unknown, string>();
          for (const m of all) {
            last.set(m.sessionId ?? null, String(m.createdDate));
            if (m.sessionId == null) continue;
            const own = selection.bySession.get(m.sessionId);
            if (own) own.push(m);
            else selection.bySession.set(m.sessionId, [m]);
          }
          selection.groups = [...last.entries()].sort((x, y) => (q.get('order') === 'DESC' ? -1 : 1) * x[1].localeCompare(y[1])).map(([g]) => g);
        }
        selections.clear();
        selections.set(key, selection);
      }
      let rows = selection.rows;
      if (q.get('feedback')) {
        if (paged) rows = selection.groups.slice((page - 1) * limit, page * limit).flatMap((g) => selection.bySession.get(g) ?? []).sort(byDate);
        rows = rows.map((m) => ({ ...m, feedback: feedbackOf(m) && out(feedbackOf(m)!) }));
      }
      // Newest first as SQLite sorts: by the text descending, ties still in stored order.
      if (q.get('order') === 'DESC') rows = [...rows].sort((x, y) => byDate(y, x));
      const scanned = (byDateOf.get(id)?.rows.length ?? 0) * (paged ? 2 : 1);
      return Object.assign(json(rows.map(out)), { rows: rows.length, scanned });
    }

    if (resource === 'upsert-history') {
      if (method === 'GET' && id === undefined && newer(version)) return flowiseError(400, 'Error: upsertHistoryController.getAllUpsertHistory - chatflow id is required!');
      if (method === 'GET' && id !== undefined && newer(version)) {
        if (!UUID.test(id)) return flowiseError(400, 'Error: upsertHistoryController.getAllUpsertHistory - Invalid Chatflow ID');
        if (!db.chatflows.some((c) => c.id === id)) return flowiseError(404, `Error: upsertHistoryServices.getAllUpsertHistory - Chatflow ${id} not found in the database!`);
      }
      if (method === 'GET') {
        const rows = db.upserts
          .filter((u) => id === undefined || u.chatflowid === id)
          .filter((u) => !q.get('startDate') || String(u.date) >= iso(q.get('startDate')!))
          .filter((u) => !q.get('endDate') || String(u.date) <= iso(q.get('endDate')!))
          .sort((x, y) => String(x.date).localeCompare(String(y.date)))
          .map((u) => ({ ...u, result: JSON.parse(String(u.result) || '{}'), flowData: JSON.parse(String(u.flowData) || '{}') }));
        if (q.get('order') === 'DESC') rows.reverse();
        return json(rows);
      }
      if (method === 'PATCH' && id === undefined) {
        const ids = typeof b.ids === 'string' ? [b.ids] : Array.isArray(b.ids) ? (b.ids as string[]) : [];
        if (ids.length === 0) {
          return newer(version)
            ? flowiseError(400, 'Error: upsertHistoryController.patchDeleteUpsertHistory - ids are required!')
            : flowiseError(500, 'Error: upsertHistoryServices.patchDeleteUpsertHistory - Empty criteria(s) are not allowed for the delete method.');
        }
        if (newer(version) && !ids.every((i) => db.upserts.some((u) => u.id === i))) {
          return flowiseError(404, 'Error: upsertHistoryServices.patchDeleteUpsertHistory - one or more upsert history records were not found!');
        }
        const before = db.upserts.length;
        db.upserts = db.upserts.filter((u) => !ids.includes(String(u.id)));
        return deleted(before - db.upserts.length);
      }
      // PATCH /upsert-history/{id} is not a route: the UI page answers.
    }

    // ---- chatflow definitions, as Flowise 3.1.2's source and section 18 have them
    if (resource === 'chatflows') {
      if (readOnly && method !== 'GET') return json({ message: 'Forbidden' }, 403);
      const notFound = () => flowiseError(404, `Chatflow ${String(id)} not found in the database!`);
      const badType = (t: unknown) => !['CHATFLOW', 'AGENTFLOW', 'MULTIAGENT', 'ASSISTANT'].includes(String(t));
      // Server-managed fields a body cannot set (stripProtectedFields).
      const given = () => Object.fromEntries(Object.entries(b).filter(([k]) => !['id', 'createdDate', 'updatedDate', 'workspaceId'].includes(k)));
      if (method === 'GET' && id === undefined) {
        const type = q.get('type');
        const rows = [...db.chatflows].filter((c) => !type || c.type === type).sort((x, y) => String(y.updatedDate).localeCompare(String(x.updatedDate)));
        const page = Number.parseInt(q.get('page') ?? '', 10);
        const limit = Number.parseInt(q.get('limit') ?? '', 10);
        if (page > 0 && limit > 0) return json({ data: rows.slice((page - 1) * limit, page * limit), total: rows.length });
        return json(rows);
      }
      if (method === 'POST' && id === undefined) {
        if (badType(b.type)) return flowiseError(400, 'Invalid Chatflow Type');
        if (typeof b.flowData === 'object' && b.flowData !== null) return flowiseError(500, '"[object Object]" is not valid JSON');
        if (b.name == null) return flowiseError(500, 'SQLITE_CONSTRAINT: NOT NULL constraint failed: chat_flow.name');
        const now = nowIso();
        const row: Row = { ...given(), workspaceId: WORKSPACE, id: randomUUID(), createdDate: now, updatedDate: now };
        for (const k of ['deployed', 'isPublic', 'apikeyid', 'chatbotConfig', 'apiConfig', 'analytic', 'speechToText', 'textToSpeech', 'followUpPrompts', 'category']) row[k] ??= null;
        db.chatflows.push(row);
        return json(row);
      }
      if (id === undefined) return html();
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return flowiseError(400, 'Invalid Chatflow ID');
      const row = db.chatflows.find((c) => c.id === id);
      if (method === 'GET') return row ? json(row) : notFound();
      if (method === 'PUT') {
        if (!row) return notFound();
        if ((b.type || b.type === '') && badType(b.type)) return flowiseError(400, 'Invalid Chatflow Type');
        Object.assign(row, given(), { updatedDate: nowIso() });
        return json(row);
      }
      if (method === 'DELETE') {
        if (!row) return flowiseError(500, `Error: chatflowsService.deleteChatflow - Chatflow ${id} not found in the database!`);
        db.chatflows = db.chatflows.filter((c) => c !== row);
        db.messages = db.messages.filter((m) => m.chatflowid !== id);
        db.feedback = db.feedback.filter((f) => f.chatflowid !== id);
        db.upserts = db.upserts.filter((u) => u.chatflowid !== id);
        return deleted(1);
      }
    }
    // ---- end chatflow definitions

    // ---- credentials: GET /credentials answers every credential without its encryptedData; with
    // ?credentialName= (one type) Flowise includes encryptedData (the CLI must never ask for it).
    if (resource === 'credentials' && method === 'GET' && id === undefined) {
      if (readOnly) return json({ message: 'Forbidden' }, 403);
      const name = q.get('credentialName');
      return json(name ? db.credentials.filter((c) => c.credentialName === name) : db.credentials.map(({ encryptedData: _, ...c }) => c));
    }
    // ---- end credentials

    return html();
  };

  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const method = req.method ?? 'GET';
    const logged: FixtureRequest = { method, url: url.pathname + url.search };
    requests.push(logged);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (r: Reply) => {
        res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': Buffer.byteLength(r.body) });
        res.end(r.body);
      };
      const fail = failures.get(url.pathname);
      if (fail && fail.count > 0) {
        fail.count -= 1;
        return send(new Reply(fail.status, `<html><body><h1>${fail.status} Service Unavailable</h1></body></html>`, 'text/html'));
      }
      if (url.pathname.startsWith('/api/v1/__hang')) return; // never answers
      if (!url.pathname.startsWith('/api/v1/')) return send(html());
      const resource = url.pathname.split('/')[3];
      const open = resource === 'ping' || resource === 'version' || resource === 'feedback';
      const auth = req.headers.authorization;
      const key = auth === undefined ? undefined : auth.split('Bearer ').pop();
      if (!open && key !== apiKey && key !== readOnlyKey) return send(json({ error: 'Unauthorized Access' }, 401));
      let body: unknown;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text !== '' && (req.headers['content-type'] ?? '').includes('application/json')) {
        try {
          body = JSON.parse(text);
        } catch (err) {
          return send(flowiseError(400, (err as Error).message));
        }
      }
      try {
        const reply = route(method, url.pathname, url.searchParams, body, key);
        if (reply.rows) logged.rows = reply.rows;
        const cost = reply.rows * (opts.msPerRow ?? 0) + reply.scanned * (opts.msPerScannedRow ?? 0);
        if (cost >= 1) setTimeout(() => send(reply), cost);
        else send(reply);
      } catch (err) {
        send(flowiseError(500, (err as Error).message));
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    readOnlyKey,
    requests,
    takeMaxInFlight() {
      const most = maxInFlight;
      maxInFlight = inFlight;
      return most;
    },
    failNext(path, status, count = 1) {
      failures.set(path, { status, count });
    },
    idOf: fixtureChatflowId,
    seed(name, data) {
      const chatflowId = fixtureChatflowId(name);
      generation++;
      if (!db.chatflows.some((c) => c.id === chatflowId)) db.chatflows.push({ ...db.chatflows[0]!, id: chatflowId, name });
      const row = ({ ms, ...r }: SeedRow): Row => ({ ...r, createdDate: stored(r.createdDate, ms) });
      for (const m of data.messages) {
        db.messages.push({ role: 'userMessage', content: '', chatType: 'INTERNAL', memoryType: null, sessionId: null, sourceDocuments: null, usedTools: null, execution: null, ...row(m), chatflowid: chatflowId });
      }
      for (const f of data.feedback ?? []) db.feedback.push({ content: null, ...row(f), chatflowid: chatflowId });
      for (const u of data.upserts ?? []) db.upserts.push({ result: '{}', flowData: '{}', ...u, chatflowid: chatflowId });
    },
    addCredential(name, credentialName) {
      const at = nowIso();
      const id = randomUUID();
      db.credentials.push({ id, name, credentialName, encryptedData: CREDENTIAL_SECRET, createdDate: at, updatedDate: at, workspaceId: WORKSPACE });
      return id;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
