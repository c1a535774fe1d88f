// docs/architecture.md is the map a newcomer reads first: short enough to read, and every path
// of src/cli/ it names is there (a module moved without the map fails here).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAP = resolve(import.meta.dirname, '../../docs/architecture.md');
const SRC = resolve(import.meta.dirname, '../../src');

describe('docs/architecture.md', () => {
  it('is at most 15 KB', () => {
    expect(statSync(MAP).size).toBeLessThanOrEqual(15_000);
  });

  it('names only paths of cli/ that exist', () => {
    const named = [...readFileSync(MAP, 'utf8').matchAll(/`(cli\/[\w./-]+)/g)].map((m) => m[1]!.replace(/#.*$/, ''));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((path) => !existsSync(resolve(SRC, path)))).toEqual([]);
  });
});
