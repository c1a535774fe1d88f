// Limits of the interface that the CLI needs too: plain constants, so that reading them does not
// load the schema library (routes.ts builds the schemas from them).

/** The most records one ingest request may carry (one transaction). */
export const MAX_INGEST_ITEMS = 10_000;
