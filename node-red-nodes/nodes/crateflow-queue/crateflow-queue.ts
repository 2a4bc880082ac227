import type { Node, NodeAPI, NodeDef } from '../node-red-api.js';
import { CrateflowApiError } from '../crateflow-server/crateflow-api-error.js';
import { findServer } from '../crateflow-server/find-server.js';
import { buildQueueCall, isOperation, QueueInputError, type Operation } from './queue-call.js';

interface QueueDef extends NodeDef {
  server?: string;
  operation?: string;
  /** Page size for `list`; a message's `payload.limit` overrides it. */
  limit?: number | string;
}

export = function register(RED: NodeAPI): void {
  function CrateflowQueueNode(this: Node, def: QueueDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const configured: Operation = isOperation(def.operation) ? def.operation : 'list';
    const limit = Number(def.limit) > 0 ? Number(def.limit) : undefined;
    // One controller per node: closing the node (redeploy, shutdown) aborts the calls still in flight.
    let inFlight = new AbortController();

    node.on('input', (msg, send, done) => {
      const run = async () => {
        const server = findServer(RED, def.server);
        if (!server) throw new QueueInputError(RED._('crateflow-queue.errors.no-server'));
        const operation = msg.operation === undefined ? configured : msg.operation;
        if (!isOperation(operation)) throw new QueueInputError(`msg.operation must be list, add, approve or reject, not ${JSON.stringify(operation)}`);
        const call = buildQueueCall(operation, msg.payload, { limit });
        node.status({ fill: 'blue', shape: 'dot', text: RED._(`crateflow-queue.status.${operation}-running`) });
        const answer = await server.client.request(call.method, call.path, { body: call.body, query: call.query, signal: inFlight.signal });
        msg.payload = answer.body;
        msg.statusCode = answer.status;
        node.status({ fill: 'green', shape: 'dot', text: summarise(operation, answer.body) });
        send(msg);
      };
      run().then(
        () => done(),
        (error: unknown) => {
          if (error instanceof CrateflowApiError && error.statusCode !== undefined) msg.statusCode = error.statusCode;
          const text = error instanceof CrateflowApiError && error.statusCode !== undefined ? `${error.statusCode}` : RED._('crateflow-queue.status.failed');
          node.status({ fill: 'red', shape: 'ring', text });
          done(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });

    node.on('close', (_removed, done) => {
      inFlight.abort();
      inFlight = new AbortController();
      node.status({});
      done();
    });

    function summarise(operation: Operation, body: unknown): string {
      const field = (name: string): unknown => (typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined);
      const items = field('items');
      switch (operation) {
        case 'list':
          return RED._('crateflow-queue.status.listed', { count: Number(field('total') ?? (Array.isArray(items) ? items.length : 0)) });
        case 'add':
          return RED._('crateflow-queue.status.added', { count: Array.isArray(items) ? items.length : 0, duplicates: Number(field('duplicates') ?? 0) });
        case 'approve':
          return RED._('crateflow-queue.status.approved', { count: Number(field('count') ?? 1) });
        case 'reject':
          return RED._('crateflow-queue.status.rejected', { count: Number(field('count') ?? 1) });
      }
    }
  }

  RED.nodes.registerType('crateflow-queue', CrateflowQueueNode);
};
