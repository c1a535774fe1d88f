// better-sqlite3 12.x's JavaScript (store/sqlite-driver.ts says when it is the one). A module of
// its own so that the build bundles that JavaScript into server.cjs (scripts/bundle.js replaces
// this file): found, read and compiled file by file, its dozen small modules cost a command
// answered in its own process some 5 ms. Its addon is still loaded by its path in node_modules.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const load = createRequire(import.meta.url);

export const requireV12 = (): typeof BetterSqlite3 => load('better-sqlite3') as typeof BetterSqlite3;
