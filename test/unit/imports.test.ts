/**
 * Arrows one way (DESIGN.md "Processes and folders"): no circular import anywhere in the
 * TypeScript the repository tracks, type-only imports included (a type circle is still two
 * files that cannot be read apart). Imports are read with TypeScript's own pre-processor.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = join(__dirname, '..', '..');

/** Each tracked .ts file -> the tracked .ts files it imports or re-exports by a relative path. */
function importGraph(): Map<string, string[]> {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const deps = importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => posix.normalize(posix.join(dirname(file), i.fileName)))
      .map((base) => [`${base}.ts`, `${base}/index.ts`, base].find((c) => known.has(c)))
      .filter((d): d is string => d !== undefined);
    graph.set(file, deps);
  }
  return graph;
}

/** The import circles of `graph`: its strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the import-circle finder finds a circle of type imports and of re-exports', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
    ['e.ts', ['e.ts']],
  ]);
  assert.deepEqual(circles(graph), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  // The pre-processor sees `import type` and `export ... from` alike.
  const { importedFiles } = ts.preProcessFile("import type { X } from './x';\nexport { y } from './y';\nimport z = require('./z');\n", true, true);
  assert.deepEqual(importedFiles.map((f) => f.fileName), ['./x', './y', './z']);
});

test('no circular import in the source tree', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, `read ${graph.size} files`);
  assert.deepEqual(circles(graph), []);
});
