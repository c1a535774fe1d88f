// Limits of the interface that the CLI needs too: plain constants, so that reading them does not
// load the schema library (routes.ts builds the schemas from them).

/** The most records one ingest request may carry (one transaction). */
export const MAX_INGEST_ITEMS = 10_000;

/** A list's page when `page` is given without `limit`. */
export const DEFAULT_PAGE_SIZE = 100;
/** A page of a chatflow's chats (GET /chats/:id) unless `limit` says otherwise: they are summed up a page at a time. */
export const CHATS_PAGE_SIZE = 20;
/** The largest page a list answers (`limit`). */
export const MAX_PAGE_SIZE = 1000;
/** Keeps the row offset, (page - 1) × limit, a safe integer that every database takes. */
export const MAX_PAGE = 1_000_000_000;

/**
 * A streamed (NDJSON) ingest commits its lines MAX_INGEST_ITEMS at a time, and at most this many
 * bytes of them: what the service holds of a stream at once.
 */
export const MAX_INGEST_BATCH_BYTES = 32 * 1024 * 1024;
