// The tables of the lists: each list's columns (in the order shown) and which matter most to a
// person (`priority`, most important first). On a narrow terminal random ids (UUIDv4) shorten to
// prefixes while other ids stay whole (an id cell always identifies its record), a record's name
// (`name`) is never cut either, free text (`text`) is cut before roles and types (`label`), and
// the columns last in priority are hidden first (render/list-table.ts); what a command takes (a
// name, an id) ranks above what every row repeats. `-o wide` and `--fields` show any of them whole.
import type { Column, ListView } from './list-table.js';

/** A rating as a person reads it at a glance. */
const ratingCell = (value: unknown): string =>
  value === 'THUMBS_UP' ? '▲ up' : value === 'THUMBS_DOWN' ? '▼ down' : value === null || value === undefined ? '' : String(value);

const RATING: Column = { key: 'rating', kind: 'label', cell: ratingCell };

export const VARIABLE_TABLE: ListView = {
  columns: [
    { key: 'id', kind: 'id' },
    { key: 'name', kind: 'name' },
    { key: 'value', kind: 'text' },
    { key: 'type', kind: 'label' },
    { key: 'updatedDate', kind: 'date' },
  ],
  priority: ['name', 'id', 'value', 'type', 'updatedDate'],
};

export const ASSISTANT_TABLE: ListView = {
  columns: [
    { key: 'id', kind: 'id' },
    { key: 'details.name', kind: 'name' },
    { key: 'details.model', kind: 'label' },
    { key: 'type', kind: 'label' },
    { key: 'updatedDate', kind: 'date' },
  ],
  priority: ['details.name', 'id', 'details.model', 'type', 'updatedDate'],
};

/** Flowise's credentials: what an assistant's --credential takes (the id), by name and kind. */
export const CREDENTIAL_TABLE: ListView = {
  columns: [
    { key: 'id', kind: 'id' },
    { key: 'name', kind: 'name' },
    { key: 'credentialName', kind: 'label' },
  ],
  priority: ['name', 'id', 'credentialName'],
};

export const MESSAGE_TABLE: ListView = {
  columns: [
    { key: 'createdDate', kind: 'date' },
    { key: 'role', kind: 'label' },
    { key: 'sessionId', kind: 'id' },
    { key: 'chatType', kind: 'label' },
    { key: 'content', kind: 'text' },
    { key: 'id', kind: 'id' },
  ],
  priority: ['createdDate', 'role', 'content', 'id', 'sessionId', 'chatType'],
};

/** `messages list --feedback`: each message with its rating and the comment left with it. */
export const RATED_MESSAGE_TABLE: ListView = {
  columns: [
    { key: 'createdDate', kind: 'date' },
    { key: 'role', kind: 'label' },
    { ...RATING, key: 'feedback.rating', header: 'rating' },
    { key: 'sessionId', kind: 'id' },
    { key: 'content', kind: 'text' },
    { key: 'feedback.content', header: 'comment', kind: 'text' },
    { key: 'id', kind: 'id' },
  ],
  priority: ['createdDate', 'feedback.rating', 'content', 'feedback.content', 'role', 'id', 'sessionId'],
};

export const FEEDBACK_TABLE: ListView = {
  columns: [
    { key: 'id', kind: 'id' },
    { key: 'messageId', kind: 'id' },
    { key: 'chatId', kind: 'id' },
    RATING,
    { key: 'content', kind: 'text' },
    { key: 'createdDate', kind: 'date' },
  ],
  // The feedback's own id before its message's: it is what `feedback update` takes.
  priority: ['createdDate', 'rating', 'content', 'id', 'messageId', 'chatId'],
};

export const UPSERT_HISTORY_TABLE: ListView = {
  columns: [
    { key: 'id', kind: 'id' },
    { key: 'chatflowid', kind: 'id' },
    { key: 'date', kind: 'date' },
    { key: 'result', kind: 'text' },
  ],
  // The id is what `upsert-history delete` takes; the chatflow is the same on every row of one's list.
  priority: ['id', 'date', 'result', 'chatflowid'],
};

/** `chatflow service status`: which service, of which database; the rest goes first when narrow. */
export const SERVICE_TABLE: ListView = {
  columns: [
    { key: 'pid', kind: 'id' },
    { key: 'state', kind: 'label' },
    { key: 'current', kind: 'label', cell: (v) => (v ? 'yes' : '') },
    { key: 'database', kind: 'id' },
    { key: 'version', kind: 'label' },
    { key: 'idleSeconds', kind: 'label', header: 'idle s' },
    { key: 'started', kind: 'date' },
  ],
  priority: ['pid', 'database', 'state', 'current', 'version', 'started', 'idleSeconds'],
};
