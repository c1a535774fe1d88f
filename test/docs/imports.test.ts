// The layers' imports, read from the sources (type-only and lazy `import()` ones included): no
// module reaches itself again through its imports, and every import points down the layers, those
// of src/ and those inside cli/ (docs/architecture.md, "The CLI").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each module's relative imports: `from '…'`, `import '…'` and `import('…')`. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)]
      .map((m) => resolve(dirname(file), m[1]!).replace(/\.js$/, '.ts'))
      .filter((t) => existsSync(t));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** One path around each cycle found by a depth-first walk. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]): void => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push([...path.slice(at), file].map((f) => relative(SRC, f)).join(' -> '));
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

describe('imports in src/', () => {
  it('form no cycle, type-only and lazy imports included', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it('point down the layers: schema ← client ← CLI, schema ← store ← server; the server never the CLI', () => {
    const below: [RegExp, RegExp][] = [
      [/^schema\//, /^(?!schema\/)/],
      [/^client\//, /^(server|cli)\//],
      [/^server\/store\//, /^(server\/(?!store\/)|cli\/)/],
      [/^server\//, /^cli\//],
    ];
    const upward = [...importGraph()].flatMap(([file, targets]) =>
      targets
        .map((target) => [relative(SRC, file), relative(SRC, target)] as const)
        .filter(([from, to]) => below.some(([layer, above]) => layer.test(from) && above.test(to)))
        .map(([from, to]) => `${from} -> ${to}`),
    );
    expect(upward).toEqual([]);
  });

  it('inside cli/: base ← render ← core ← the feature folders ← the entry modules (main, program, commands, docs)', () => {
    // A feature folder (variables/, messages/, …) may import another; none imports an entry module.
    const LAYERS: Record<string, number> = { base: 0, render: 1, core: 2 };
    const rank = (path: string): number => {
      const parts = path.split('/');
      return parts.length === 2 ? 4 : (LAYERS[parts[1]!] ?? 3);
    };
    const edges = [...importGraph()].flatMap(([file, targets]) => targets.map((target) => [relative(SRC, file), relative(SRC, target)] as const));
    const inside = edges.filter(([from, to]) => from.startsWith('cli/') && to.startsWith('cli/'));
    expect(inside.length).toBeGreaterThan(100);
    expect(inside.filter(([from, to]) => rank(from) < rank(to)).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });
});
