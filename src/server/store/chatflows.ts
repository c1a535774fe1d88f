// KyselyChatflows: chatflow definitions, as Flowise's chat_flow table holds them (flowData and the
// settings as JSON text, kept byte for byte as given), listed by name.
import { randomUUID } from 'node:crypto';
import { CHATFLOW_SETTINGS } from '../../schema/enums.js';
import type { ChatflowDefinition, ChatflowFields, ChatflowIngest } from '../../schema/resources.js';
import { iso, pick, rowsOf, type Engine } from './engine.js';
import { now, storedDate } from './dates.js';
import { NotFound } from './errors.js';
import type { ChatflowRow } from './tables.js';
import type { ChatflowRepository } from './types.js';

const flag = (v: string | null): boolean | null => (v === null ? null : v === 'true');
const flagText = (v: boolean | null | undefined): string | null => (v === undefined || v === null ? null : String(v));

const toChatflow = (r: ChatflowRow): ChatflowDefinition => ({
  id: r.id,
  name: r.name,
  flowData: r.flowData,
  type: r.type as ChatflowDefinition['type'],
  deployed: flag(r.deployed),
  isPublic: flag(r.isPublic),
  apikeyid: r.apikeyid,
  category: r.category,
  chatbotConfig: r.chatbotConfig,
  apiConfig: r.apiConfig,
  analytic: r.analytic,
  speechToText: r.speechToText,
  textToSpeech: r.textToSpeech,
  followUpPrompts: r.followUpPrompts,
  mcpServerConfig: r.mcpServerConfig,
  createdDate: iso(r.createdDate),
  updatedDate: iso(r.updatedDate),
});

/** A new row; ingest keeps the record's id and dates (`kept`), create makes them. */
function toRow(c: ChatflowIngest, at: string, kept: boolean): ChatflowRow {
  const createdDate = kept ? storedDate(c.createdDate, at) : at;
  return {
    id: (kept && c.id) || randomUUID(),
    name: c.name,
    flowData: c.flowData,
    type: c.type,
    deployed: flagText(c.deployed),
    isPublic: flagText(c.isPublic),
    apikeyid: c.apikeyid ?? null,
    category: c.category ?? null,
    ...(Object.fromEntries(CHATFLOW_SETTINGS.map((k) => [k, c[k] ?? null])) as Pick<ChatflowRow, (typeof CHATFLOW_SETTINGS)[number]>),
    createdDate,
    updatedDate: kept ? storedDate(c.updatedDate, createdDate) : at,
  };
}

export class KyselyChatflows implements ChatflowRepository {
  constructor(private readonly engine: Engine) {}

  async create(input: ChatflowFields): Promise<ChatflowDefinition> {
    const row = toRow(input, now(), false);
    await this.engine.db.insertInto('chat_flow').values(row).execute();
    return toChatflow(row);
  }

  async list(type?: ChatflowDefinition['type']): Promise<ChatflowDefinition[]> {
    let q = this.engine.db.selectFrom('chat_flow').selectAll().orderBy('name').orderBy('id');
    if (type !== undefined) q = q.where('type', '=', type);
    return (await q.execute()).map(toChatflow);
  }

  async get(id: string): Promise<ChatflowDefinition> {
    const row = await this.engine.db.selectFrom('chat_flow').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFound('chatflow', id);
    return toChatflow(row);
  }

  async update(id: string, patch: Partial<ChatflowFields>): Promise<ChatflowDefinition> {
    const row = await this.engine.db
      .updateTable('chat_flow')
      .set({
        ...pick(patch, ['name', 'flowData', 'type', 'apikeyid', 'category', ...CHATFLOW_SETTINGS]),
        ...(patch.deployed !== undefined ? { deployed: flagText(patch.deployed) } : {}),
        ...(patch.isPublic !== undefined ? { isPublic: flagText(patch.isPublic) } : {}),
        updatedDate: now(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new NotFound('chatflow', id);
    return toChatflow(row);
  }

  delete(id: string): Promise<number> {
    return this.engine.deleteById('chat_flow', 'chatflow', id);
  }

  ingest(chatflows: ChatflowIngest[]): Promise<number> {
    const at = now();
    return this.engine.insertAll('chat_flow', ...rowsOf(chatflows.map((c) => toRow(c, at, true))));
  }
}
