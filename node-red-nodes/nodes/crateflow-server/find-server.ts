import type { Node, NodeAPI } from '../node-red-api.js';
import { CrateflowClient } from './crateflow-client.js';

export interface ServerCredentials {
  apiKey: string;
  webhookSecret: string;
}

/** A `crateflow-server` config node as other nodes see it. */
export interface ServerNode extends Node<ServerCredentials> {
  client: CrateflowClient;
}

/** The configured `crateflow-server` node with this id, or `null` when none is selected or it is missing. */
export function findServer(RED: NodeAPI, id: string | undefined): ServerNode | null {
  if (!id) return null;
  const node = RED.nodes.getNode(id);
  return isServerNode(node) ? node : null;
}

function isServerNode(value: unknown): value is ServerNode {
  return typeof value === 'object' && value !== null && 'client' in value && value.client instanceof CrateflowClient;
}
