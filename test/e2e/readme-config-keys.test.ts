import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/run-service.js';

/** Every key of a parsed YAML value, as `a.b`, `a[].b` (array items share one path). */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keyPaths(item, `${prefix}[]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...keyPaths(inner, path)];
  });
}

/**
 * The keys config.yaml.example shows, commented-out ones included: each `key:` line under its parent by indent; a
 * `- key:` line starts an item of its parent's array, whose further keys sit two columns right of the dash.
 */
function exampleKeyPaths(text: string): Set<string> {
  const paths = new Set<string>();
  const stack: { indent: number; path: string }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^(\s*)#\s?/, '$1');
    const match = /^(\s*)(- )?([a-z_][a-z0-9_]*):(\s|$)/.exec(line);
    if (!match) continue;
    const column = (match[1] ?? '').length;
    while (stack.length > 0 && (stack.at(-1)?.indent ?? 0) >= column) stack.pop();
    let parent = stack.at(-1)?.path ?? '';
    let keyColumn = column;
    if (match[2]) {
      parent = `${parent}[]`;
      keyColumn = column + 2;
      stack.push({ indent: column + 1, path: parent });
    }
    const path = parent ? `${parent}.${match[3]}` : (match[3] ?? '');
    paths.add(path);
    stack.push({ indent: keyColumn, path });
  }
  return paths;
}

// The README's examples are what people copy: a key they show that config.yaml.example lacks is a key a reader
// cannot find explained anywhere (#28: the plain `password` key was one).
describe('README config examples', () => {
  it('use only keys that config.yaml.example shows', async () => {
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const known = exampleKeyPaths(await readFile(join(REPO_ROOT, 'config.yaml.example'), 'utf8'));
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    assert.ok(blocks.length >= 3, 'the README has YAML examples');
    // A third-party plugin's own keys (plugins[].config) are documented by that plugin.
    const missing = blocks.flatMap((block) => keyPaths(parse(block))).filter((path) => !known.has(path) && !path.startsWith('plugins[].config.'));
    assert.deepEqual([...new Set(missing)], []);
  });
});
