// The service as a library: the app factory and the stores it runs on.
export { buildApp, startServer, type AppOptions, type RunningServer } from './app.js';
export { openSqliteStore } from './store/sqlite.js';
export type { Store } from './store/types.js';
export { openPostgresStore } from './store/postgres.js';
