// The service as a library: the app factory and the stores it runs on.
export { buildApp, startServer, type AppOptions, type RunningServer, type ServerOptions } from './app.js';
export type { Retention, RetentionPolicy } from './retention.js';
export { openSqliteStore } from './store/sqlite.js';
export type { Store } from './store/types.js';
export { openPostgresStore } from './store/postgres/open.js';
