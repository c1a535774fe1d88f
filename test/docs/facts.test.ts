// Facts of src/schema/ written once: a second spelling of one elsewhere in src/ is a second source
// of truth, which drifts. Each check reads the sources for the fact's own text.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MESSAGE_FILTERS } from '../../src/schema/filters.js';
import { API_PREFIX, ROUTE_PATHS } from '../../src/schema/paths.js';

const SRC = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** `file:line` of each line of code (not a comment's) outside `home` (relative to src/) that `pattern` matches. */
function spelledOutside(home: string, pattern: RegExp, under = ''): string[] {
  return sources(join(SRC, under))
    .filter((file) => relative(SRC, file) !== home)
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line) ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('facts written once', () => {
  it("a message filter's flag is the filter table's (cli/core/filters.ts#filterFlag), never spelled again", () => {
    const flags = MESSAGE_FILTERS.map((f) => escape(f.flag.split(' ')[0]!));
    expect(spelledOutside('schema/filters.ts', new RegExp(`['"\`](${flags.join('|')})\\s+<`))).toEqual([]);
  });

  it('a route\'s path is schema/paths.ts\'s (routePath, routeRequest), never a literal elsewhere', () => {
    const firsts = [...new Set(Object.values(ROUTE_PATHS).map((r) => r.path.split('/')[1]!))].map(escape);
    // (In a string, a template or a regular expression: `'/feedback`, `` `/api/v1/feedback ``, `\/feedback`.)
    const literal = new RegExp(`(['"\`](${escape(API_PREFIX)})?|\\\\)/(${firsts.join('|')})\\b`);
    expect(spelledOutside('schema/paths.ts', literal)).toEqual([]);
  });

  it("a page's default size is schema/limits.ts's (DEFAULT_PAGE_SIZE, CHATS_PAGE_SIZE), never a number beside a limit", () => {
    expect(spelledOutside('schema/limits.ts', /\blimit\s*\?\?\s*\d|\bDEFAULT_(LIMIT|PAGE\w*)\s*=\s*\d/)).toEqual([]);
  });

  it('what test/types/facts.ts leaves out fails the compile (a message column, a path\'s id)', async () => {
    const tsc = resolve(import.meta.dirname, '../../node_modules/typescript/bin/tsc');
    // (tsc exits 0 only when every `@ts-expect-error` line there fails.)
    await expect(promisify(execFile)(process.execPath, [tsc, '-p', resolve(import.meta.dirname, '../types/tsconfig.json')])).resolves.toBeDefined();
  }, 120_000);
});
