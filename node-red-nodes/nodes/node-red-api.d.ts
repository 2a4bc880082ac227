// The part of the Node-RED runtime API these nodes use, typed by hand: @types/node-red describes Node-RED 1.x and
// types the admin/node apps as express apps, which would pull express typings in for three calls.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface NodeMessage {
  _msgid?: string;
  payload?: unknown;
  [key: string]: unknown;
}

export type NodeSend = (msg: NodeMessage | null | Array<NodeMessage | null>) => void;
export type NodeDone = (err?: Error) => void;

export interface NodeStatus {
  fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
  shape?: 'ring' | 'dot';
  text?: string;
}

/** What every node's config object carries; each node type adds its own properties. */
export interface NodeDef {
  id: string;
  type: string;
  name?: string;
  z?: string;
}

/** A node instance after `RED.nodes.createNode(this, def)`. */
export interface Node<Credentials extends object = Record<string, never>> {
  readonly id: string;
  readonly type: string;
  name?: string;
  credentials: Partial<Credentials> | undefined;
  on(event: 'input', listener: (msg: NodeMessage, send: NodeSend, done: NodeDone) => void): void;
  on(event: 'close', listener: (removed: boolean, done: () => void) => void): void;
  status(status: NodeStatus): void;
  /** Sends outside an input handler (inside one, use the handler's `send`). */
  send(msg: NodeMessage | Array<NodeMessage | null>): void;
  log(message: string): void;
  warn(message: string): void;
  error(message: string | Error, msg?: NodeMessage): void;
}

/** An express 4 request as the handlers here see it: a node:http request plus the admin app's parsed JSON body. */
export interface HttpRequest extends IncomingMessage {
  body?: unknown;
  /** body-parser's "this body is already handled" flag; set, every body-parser middleware skips the request. */
  _body?: boolean;
}
export type HttpHandler = (req: HttpRequest, res: ServerResponse, next: (err?: unknown) => void) => void;

/** express 4 internals, used only to remove a route again (the core HTTP In node does the same). */
export interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean | undefined>; stack: Array<{ handle: unknown }> };
  handle?: unknown;
}

export interface HttpApp {
  get(path: string, ...handlers: HttpHandler[]): void;
  post(path: string, ...handlers: HttpHandler[]): void;
  use(handler: HttpHandler): void;
  /** The app this one is mounted on (express sets it on mount); absent on the root app. */
  parent?: HttpApp;
  /** The app's mount path as seen from the root app ('' on the root). */
  path?(): string;
  _router?: { stack: ExpressLayer[] };
}

export interface CredentialDef {
  type: 'text' | 'password';
}

export interface NodeAPI {
  nodes: {
    createNode(node: object, def: NodeDef): void;
    getNode(id: string): unknown;
    getCredentials(id: string): Record<string, unknown> | undefined;
    registerType<N, D extends NodeDef>(
      type: string,
      constructor: (this: N, def: D) => void,
      options?: { credentials?: Record<string, CredentialDef> },
    ): void;
  };
  /** The editor's admin app (express 4); routes here sit behind the editor's authentication. Absent without an editor. */
  httpAdmin?: HttpApp | null;
  /** The app that serves flows' HTTP endpoints; `null`/absent when `httpNodeRoot` is `false`. */
  httpNode?: HttpApp | null;
  auth: { needsPermission(permission: string): HttpHandler };
  /** Translates a message key of this node set's locale catalogue. */
  _(key: string, substitutions?: Record<string, string | number>): string;
}
