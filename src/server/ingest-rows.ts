// The ingest routes whose streamed (NDJSON) records become the store's rows on the parsing thread
// (ndjson-worker.ts), by the function the store makes the array form's rows with: the thread that
// writes then only binds them. Rows cross as arrays, which V8 deserializes in half the time of
// the records' objects. (Routes of few records keep their handlers: nothing to gain there.)
import type { RouteName } from '../schema/routes.js';
import type { ChatMessageIngest } from '../schema/resources.js';
import { messageRow } from './store/message-row.js';
import type { Store } from './store/types.js';

export interface RowForm {
  /** A record checked by the route's body schema, as its row; `at` is its batch's time. */
  row(params: Record<string, string>, record: unknown, at: string): unknown[];
  /** Writes a batch of rows in one transaction, as the route's handler would its records: how many were new. */
  write(store: Store, rows: unknown[][]): Promise<number>;
}

export const ROW_FORMS: Partial<Record<RouteName, RowForm>> = {
  ingestMessages: {
    row: (params, record, at) => messageRow(params.id!, record as ChatMessageIngest, at),
    write: (store, rows) => store.messages.ingestRows(rows),
  },
};
