// Where the import's reading thread's module is (reader.ts starts it): beside this one in dist/;
// the bundle puts its own file in this module's place (scripts/bundle.js).
export const READER_THREAD: string | URL = new URL('./reader-thread.js', import.meta.url);
