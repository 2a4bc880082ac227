import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { joinPath, type PathProblem } from '../schema/format-schema-errors.js';

/**
 * Every key written twice in one mapping, by its full path and both lines: "server.port: is written twice
 * (lines 2 and 3); keep one". The yaml library only says "Map keys must be unique" at a position, which does
 * not tell a person which key, and a duplicate is usually a paste that left an old value in place.
 */
export function findDuplicateKeys(text: string): PathProblem[] {
  const doc = parseDocument(text, { uniqueKeys: false, keepSourceTokens: false });
  const lineOf = lineCounter(text);
  const problems: PathProblem[] = [];
  const visit = (node: unknown, path: string) => {
    if (isMap(node)) {
      const firstLine = new Map<string, number>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const line = lineOf(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
        const earlier = firstLine.get(key);
        if (earlier === undefined) firstLine.set(key, line);
        else problems.push({ path: joinPath(path, key), message: `is written twice (lines ${earlier} and ${line}); keep one` });
        visit(pair.value, joinPath(path, key));
      }
    } else if (isSeq(node)) {
      node.items.forEach((item: unknown, index) => visit(item, `${path}[${index}]`));
    }
  };
  visit(doc.contents satisfies Node | null, '');
  return problems;
}

function lineCounter(text: string): (offset: number | undefined) => number {
  return (offset) => (offset === undefined ? 0 : text.slice(0, offset).split('\n').length);
}
