import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/run-service.js';

const CORE = join(REPO_ROOT, 'core');

/** Every TypeScript file of core (the UI's browser code and build scripts aside), with the core files it imports. */
function coreImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && relative(CORE, path) !== join('ui', 'public')) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const source = readFileSync(path, 'utf8');
        const targets = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)]
          .map((match) => resolve(dirname(path), (match[1] ?? '').replace(/\.js$/, '.ts')))
          .filter((target) => target.startsWith(CORE));
        graph.set(path, targets);
      }
    }
  };
  walk(CORE);
  return graph;
}

/** The folder of core a file belongs to (`storage`, `queue`, …; files at the top are `.`). */
const folderOf = (file: string): string => relative(CORE, file).split('/').slice(0, -1)[0] ?? '.';

/** Strongly connected sets of folders (Tarjan): folders that import each other through some chain. */
function folderLoops(graph: Map<string, string[]>): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    for (const target of targets) if (folderOf(target) !== from) (edges.get(from) ?? edges.set(from, new Set()).get(from))?.add(folderOf(target));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) === index.get(node)) {
      const loop: string[] = [];
      for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
        onStack.delete(top);
        loop.push(top);
        if (top === node) break;
      }
      if (loop.length > 1) loops.push(loop.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return loops;
}

describe('the layers of core', () => {
  it('keeps the store a layer: nothing in core/storage imports the domain (queue, wishlist, downloads, jobs, events, library, sources)', () => {
    const domain = new Set(['queue', 'wishlist', 'downloads', 'jobs', 'events', 'library', 'sources']);
    const crossings = [...coreImports()]
      .filter(([file]) => folderOf(file) === 'storage')
      .flatMap(([file, targets]) => targets.filter((target) => domain.has(folderOf(target))).map((target) => `${relative(CORE, file)} → ${relative(CORE, target)}`));
    assert.deepEqual(crossings, []);
  });

  it('has no folder of core in a loop with the store, and no loop through more than a few folders', () => {
    const loops = folderLoops(coreImports());
    assert.equal(loops.some((loop) => loop.includes('storage')), false, `loops: ${JSON.stringify(loops)}`);
    const largest = Math.max(0, ...loops.map((loop) => loop.length));
    assert.ok(largest <= 4, `the largest loop of folders has ${largest}: ${JSON.stringify(loops)}`);
  });
});
