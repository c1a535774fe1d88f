// Flowise 3.x, as docs/spec/flowise-observed.md records it (section 4), asked so that it
// answers what the interface means:
// - dates: a plain date is midnight to Flowise (`endDate=2026-02-15` drops that day), an unreadable
//   one is ignored; its filters compare text, so a row stored without milliseconds (SQLite column
//   defaults: all feedback, seeded rows) sits *before* a bound on the same second. Bounds go out
//   as explicit instants, the lower one a millisecond early, and the client keeps exactly the range.
// - feedback list and DELETE with chatId apply dates only as a pair: a lone bound gets its far twin.
// - `feedback=<anything>` pages by session, and `feedbackType` adds the message before each rated
//   one and drops every message without a session: rated messages are decided by the client from
//   the chatflow's ratings (`GET /feedback/F`), and a whole chatflow is read by date windows.
// - `page`/`limit` are ignored (messages without feedback, feedback): the client pages the stream.
// - an unknown chatflow (or one outside the key's workspace) is a 500 "Unauthorized access" on
//   GET /chatmessage: an empty list, as on our service, where a chatflow is just an id. A chatflow
//   id that is no UUID is never sent: Flowise makes only UUIDs, and on PostgreSQL such an id is a
//   500 "invalid input syntax for type uuid" (docs/spec/flowise-versions.md 4).
// Versions (docs/spec/flowise-versions.md 3): 3.1.3+ answers GET /upsert-history of an unknown chatflow 404
// and of a non-UUID 400 (an empty list, as 3.1.2 and our service answer), a PATCH naming one
// unknown id 404, deleting nothing of its batch, and GET /upsert-history without a chatflow 400
// ("chatflow id is required!": every chatflow's records are read one chatflow at a time). An unknown version is taken as the newest.
import type { ChatMessage } from '../../schema/resources.js';
import { boundInstants, millis } from '../dates.js';
import { ChatflowError } from '../errors.js';
import { defined, flag } from '../queries.js';
import type { Dialect } from './types.js';

const EARLIEST = '1970-01-01T00:00:00.000Z';
const LATEST = '9999-12-31T23:59:59.999Z';
const iso = (ms: number) => new Date(ms).toISOString();

/** The bounds as sent (as a pair when `pair`) and the test that keeps exactly the range. */
function dates(q: { startDate?: string | undefined; endDate?: string | undefined }, field: string, pair: boolean) {
  const { start, end } = boundInstants(q);
  if (start === undefined && end === undefined) return { query: {} };
  const query = {
    startDate: start !== undefined ? iso(start - 1) : pair ? EARLIEST : undefined,
    endDate: end !== undefined ? iso(end) : pair ? LATEST : undefined,
  };
  const inRange = (item: unknown) => {
    const t = millis((item as Record<string, unknown>)[field]);
    return (start === undefined || t >= start) && (end === undefined || t <= end);
  };
  return { query, inRange, early: start !== undefined ? start - 1 : undefined, end };
}

const unknownChatflow = (err: ChatflowError) => err.status === 500 && /unauthori[sz]ed access/i.test(err.message);
/** 3.1.3+: GET /upsert-history of a chatflow it does not know (404), or of a non-UUID (400). */
const unknownHistory = (err: ChatflowError) =>
  (err.status === 404 && /not found in the database/i.test(err.message)) || (err.status === 400 && /invalid chatflow id/i.test(err.message));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `version` (`3.1.4`) is at least `min`; an unknown or unreadable version counts as the newest. */
export function atLeast(version: string | undefined, min: readonly [number, number, number]): boolean {
  const m = version && /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  for (let i = 0; i < 3; i++) if (Number(m[i + 1]) !== min[i]) return Number(m[i + 1]) > min[i]!;
  return true;
}

/** `code` lets a caller (the CLI) say it in its own words. */
const refuse = (why: string, code: string) => new ChatflowError('refused', why, { code });

export const flowiseDialect = (version?: string): Dialect => {
  const newer = atLeast(version, [3, 1, 3]);
  const dialect: Dialect = {
    kind: 'flowise',
    ...(version !== undefined ? { version } : {}),
    deleteTakesChatFeedback: true,
    // Only a server that says it is Flowise (its version): another may have other ids.
    noSuchChatflow: (id) => version !== undefined && !UUID.test(id),
    upsertHistoryDelete: 'hard',
    upsertDeleteAllOrNothing: newer,
    // Only from a server that says it is 3.1.3+: another answers the whole list itself.
    upsertHistoryByChatflow: version !== undefined && newer,
    messageList: (q) => {
      const { page: _page, limit: _limit, startDate: _s, endDate: _e, feedback, feedbackType, ...rest } = q;
      const d = dates(q, 'createdDate', false);
      const rated = flag(feedback) || feedbackType !== undefined;
      // A chat or session filter costs what it returns; any other list is read by date windows
      // (only from a server that says it is Flowise: another may answer windows otherwise).
      const whole = version !== undefined && rest.chatId === undefined && rest.sessionId === undefined && !('messageId' in rest && rest.messageId !== undefined);
      return {
        query: defined({ ...rest, ...d.query }),
        ...(d.inRange ? { keep: d.inRange } : {}),
        clientPages: true,
        emptyOn: unknownChatflow,
        ...(whole ? { windows: { from: d.early, to: d.end } } : {}),
        ...(rated ? { rated: { rating: feedbackType } } : {}),
      };
    },
    messageDelete: (q) => {
      const { hardDelete, feedbackType, ...filters } = q;
      if (feedbackType !== undefined) {
        throw refuse(
          "Flowise's delete by rating also removes the question before each rated answer: list the rated messages " +
            'and delete them by chat id and date instead',
          'DELETE_BY_RATING',
        );
      }
      if (filters.memoryType !== undefined && filters.chatId === undefined) {
        throw refuse("Flowise's delete ignores the memory type unless a chat id is given: give the chat id too", 'DELETE_MEMORY_TYPE_ALONE');
      }
      // With chatId, Flowise applies dates only as a pair; its listing reads them the same way.
      const d = dates(filters, 'createdDate', true);
      const { startDate: _s, endDate: _e, ...exact } = filters;
      const listing = dialect.messageList(filters);
      const early = d.early;
      return {
        query: defined({ ...exact, ...d.query, hardDelete: flag(hardDelete) }),
        listing: { ...listing, query: defined({ ...exact, ...d.query }) },
        ...(early !== undefined
          ? {
              // The bound goes out a millisecond early (see above): a message exactly there is not
              // listed but would be deleted.
              conflict: (m: ChatMessage) =>
                millis(m.createdDate) === early
                  ? refuse(
                      `message ${m.id} at ${m.createdDate}, a millisecond before the start date, would be deleted too ` +
                        '(Flowise compares dates as text): give the start date a millisecond earlier or later',
                      'DELETE_START_BOUNDARY',
                    )
                  : undefined,
            }
          : {}),
      };
    },
    feedbackList: ({ sortOrder, order, page: _page, limit: _limit, startDate, endDate, ...rest }) => {
      const d = dates({ startDate, endDate }, 'createdDate', true);
      return { query: defined({ ...rest, ...d.query, order: order ?? sortOrder }), keep: d.inRange, clientPages: true };
    },
    upsertHistoryList: ({ page: _page, limit: _limit, startDate, endDate, ...rest }) => {
      const d = dates({ startDate, endDate }, 'date', false);
      return { query: defined({ ...rest, ...d.query }), keep: d.inRange, clientPages: true, ...(newer ? { emptyOn: unknownHistory } : {}) };
    },
  };
  return dialect;
};
