// Facts of src/schema/ written once: a second spelling of one elsewhere in src/ is a second source
// of truth, which drifts. Each check reads the sources for the fact's own text.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MESSAGE_FILTERS } from '../../src/schema/filters.js';
import { API_PREFIX, ROUTE_PATHS } from '../../src/schema/paths.js';

const SRC = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** `file:line` of each line outside `home` (relative to src/) that `pattern` matches. */
function spelledOutside(home: string, pattern: RegExp, under = ''): string[] {
  return sources(join(SRC, under))
    .filter((file) => relative(SRC, file) !== home)
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('facts written once', () => {
  it("a message filter's flag is the filter table's (cli/filters.ts#filterFlag), never spelled again", () => {
    const flags = MESSAGE_FILTERS.map((f) => escape(f.flag.split(' ')[0]!));
    expect(spelledOutside('schema/filters.ts', new RegExp(`['"\`](${flags.join('|')})\\s+<`))).toEqual([]);
  });

  it('a route\'s path is schema/paths.ts\'s (routePath, routeRequest), never a literal in the CLI', () => {
    const firsts = [...new Set(Object.values(ROUTE_PATHS).map((r) => r.path.split('/')[1]!))].map(escape);
    const literal = new RegExp(`['"\`](${escape(API_PREFIX)})?/(${firsts.join('|')})\\b`);
    expect(spelledOutside('schema/paths.ts', literal, 'cli')).toEqual([]);
  });
});
