// Where the parsing thread's module is (ndjson-thread.ts starts it): beside this one in dist/;
// under vitest, which runs the sources as TypeScript (a thread cannot load them), the build's.
// The bundle puts its own file in this module's place (scripts/bundle.js).
export const NDJSON_WORKER: string | URL = new URL(import.meta.url.endsWith('.ts') ? '../../dist/server/ndjson-worker.js' : './ndjson-worker.js', import.meta.url);
