import type { EventEmitter } from 'node:events';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { listenOnLoopback, type LoopbackServer } from '../fakes/listen-on-loopback.js';
import { requireFromPackage } from './build-node-package.js';

/** A node-red module's entry: `module.exports = function (RED) { … }`. */
export type NodeModule = (RED: unknown) => void;

/** A node instance as the helper exposes it; the helper emits `call:<method>` for log/status/warn/error/send. */
export interface TestNode extends EventEmitter {
  receive(msg: Record<string, unknown>): void;
}

/** A spy call as the helper reports it on `call:<method>`. */
export interface SpyCall {
  args: unknown[];
}

export interface FlowNode {
  id: string;
  type: string;
  [key: string]: unknown;
}

interface Helper {
  init(runtimePath: string, settings?: Record<string, unknown>): void;
  startServer(): Promise<void>;
  stopServer(): Promise<void>;
  load(nodes: NodeModule[], flow: FlowNode[], credentials?: Record<string, Record<string, string>>): Promise<void>;
  unload(): Promise<void>;
  getNode(id: string): TestNode | null;
}

/** What the nodes got as `RED`: only the two express apps are used by the tests. */
interface CapturedApi {
  httpNode: RequestListener;
  httpAdmin: RequestListener;
}

export interface LoadedFlow {
  getNode(id: string): TestNode;
  /** Node-RED's `httpNode` app served over loopback (the helper does not mount it: see node-red-nodes.md §6). */
  httpNodeUrl: string;
  /** Node-RED's `httpAdmin` app served over loopback. */
  httpAdminUrl: string;
  /** The `httpNode` app itself, to serve it again after the flow stopped. */
  httpNode: RequestListener;
}

/**
 * node-red-node-test-helper with types, plus real HTTP for the nodes' routes: the helper builds `RED.httpNode` as an
 * express app it never mounts, so a tiny module captures the `RED` the nodes receive and the apps are served on
 * 127.0.0.1 by node:http.
 */
export class NodeRedTestHelper {
  private readonly helper: Helper = requireFromPackage('node-red-node-test-helper');
  private servers: LoopbackServer[] = [];

  constructor(private readonly packageDir: string) {
    this.helper.init(requireFromPackage.resolve('node-red'));
  }

  /** Loads a compiled node module of the built package, e.g. `crateflow-queue`. */
  module(type: string): NodeModule {
    return requireFromPackage(join(this.packageDir, 'nodes', type, `${type}.js`));
  }

  start(): Promise<void> {
    return this.helper.startServer();
  }

  async load(types: string[], flow: FlowNode[], credentials: Record<string, Record<string, string>> = {}): Promise<LoadedFlow> {
    let captured: CapturedApi | undefined;
    const capture: NodeModule = (RED) => {
      if (typeof RED === 'object' && RED !== null && 'httpNode' in RED && 'httpAdmin' in RED) {
        const { httpNode, httpAdmin } = RED;
        if (typeof httpNode === 'function' && typeof httpAdmin === 'function') {
          captured = { httpNode: (req, res) => httpNode(req, res), httpAdmin: (req, res) => httpAdmin(req, res) };
        }
      }
    };
    await this.helper.load([capture, ...types.map((type) => this.module(type))], flow, credentials);
    if (!captured) throw new Error('the test helper passed no httpNode/httpAdmin apps to the nodes');
    const { httpNode, httpAdmin } = captured;
    const nodeServer = await serve(httpNode);
    const adminServer = await serve(httpAdmin);
    this.servers.push(nodeServer, adminServer);
    return {
      getNode: (id) => {
        const node = this.helper.getNode(id);
        if (!node) throw new Error(`flow has no node "${id}"`);
        return node;
      },
      httpNodeUrl: nodeServer.origin,
      httpAdminUrl: adminServer.origin,
      httpNode,
    };
  }

  async unload(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.close()));
    this.servers = [];
    await this.helper.unload();
  }

  stop(): Promise<void> {
    return this.helper.stopServer();
  }
}

/** Serves an express app (or any request listener) on 127.0.0.1. */
export function serve(app: RequestListener): Promise<LoopbackServer> {
  return listenOnLoopback(
    (req, res) =>
      new Promise<void>((resolve) => {
        res.on('close', () => resolve());
        app(req, res);
      }),
  );
}

/** Resolves with the next `event` emitted by `node`, or rejects after `timeoutMs`. */
export function nextEvent<T = unknown>(node: EventEmitter, event: string, timeoutMs = 3000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      node.off(event, onEvent);
      reject(new Error(`no "${event}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onEvent = (value: T) => {
      clearTimeout(timer);
      resolve(value);
    };
    node.once(event, onEvent);
  });
}
