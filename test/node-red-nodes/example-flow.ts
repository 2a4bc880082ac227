import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageDir } from './build-node-package.js';
import type { FlowNode } from './node-red-test-helper.js';

/** The nodes of an example flow shipped in node-red-nodes/examples/. */
export async function readExample(name: string): Promise<FlowNode[]> {
  const flows: unknown = JSON.parse(await readFile(join(packageDir, 'examples', name), 'utf8'));
  if (!Array.isArray(flows)) throw new Error(`${name} is not a flow array`);
  return flows.filter((node): node is FlowNode => typeof node === 'object' && node !== null && typeof node.id === 'string' && typeof node.type === 'string');
}

/** Sets the example tabs' environment variables (the examples read every address from them). */
export function withEnv(flows: FlowNode[], values: Record<string, string>): FlowNode[] {
  return flows.map((node) => {
    if (node.type !== 'tab' || !Array.isArray(node.env)) return node;
    const env: unknown[] = node.env;
    return { ...node, env: env.map((entry) => (typeof entry === 'object' && entry !== null && 'name' in entry && typeof entry.name === 'string' && entry.name in values ? { ...entry, value: values[entry.name] } : entry)) };
  });
}
