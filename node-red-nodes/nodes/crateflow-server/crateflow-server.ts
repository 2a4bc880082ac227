import type { ServerResponse } from 'node:http';
import type { HttpRequest, NodeAPI, NodeDef } from '../node-red-api.js';
import { CrateflowApiError } from './crateflow-api-error.js';
import { CrateflowClient } from './crateflow-client.js';
import type { ServerNode } from './find-server.js';
import { resolveFormUrl } from './resolve-form-url.js';

interface ServerDef extends NodeDef {
  url: string;
  rejectUnauthorized?: boolean;
  ca?: string;
}

/** The editor sends this placeholder for a password credential that is stored but was not retyped. */
const STORED_PASSWORD = '__PWRD__';

export = function register(RED: NodeAPI): void {
  function CrateflowServerNode(this: ServerNode, def: ServerDef) {
    RED.nodes.createNode(this, def);
    this.name = def.name;
    this.client = new CrateflowClient({
      baseUrl: def.url,
      apiKey: this.credentials?.apiKey,
      rejectUnauthorized: def.rejectUnauthorized !== false,
      ca: def.ca,
    });
  }

  RED.nodes.registerType('crateflow-server', CrateflowServerNode, {
    credentials: { apiKey: { type: 'password' }, webhookSecret: { type: 'password' } },
  });

  // Without the editor (httpAdminRoot: false) there is no admin app and no button to serve.
  if (!RED.httpAdmin) return;
  // The editor's "Test connection" button. POST because the form's (maybe undeployed) values travel in the body;
  // a password that was not retyped arrives as the placeholder and is read from the stored credentials instead.
  RED.httpAdmin.post('/crateflow-server/test', RED.auth.needsPermission('crateflow-server.write'), (req, res) => {
    testConnection(RED, req)
      .then((answer) => reply(res, 200, answer))
      .catch((error: unknown) => reply(res, 500, { ok: false, error: error instanceof Error ? error.message : String(error) }));
  });
};

async function testConnection(RED: NodeAPI, req: HttpRequest): Promise<Record<string, unknown>> {
  const body = typeof req.body === 'object' && req.body !== null ? req.body : {};
  const field = (name: string): unknown => (name in body ? Reflect.get(body, name) : undefined);
  const id = field('id');
  const resolved = resolveFormUrl(RED, field('url'), id);
  if ('error' in resolved) return { ok: false, error: resolved.error };
  const url = resolved.url;
  let apiKey = field('apiKey');
  if (apiKey === STORED_PASSWORD && typeof id === 'string') apiKey = RED.nodes.getCredentials(id)?.apiKey;
  const client = new CrateflowClient({
    baseUrl: url,
    apiKey: typeof apiKey === 'string' && apiKey !== STORED_PASSWORD ? apiKey : undefined,
    rejectUnauthorized: field('rejectUnauthorized') !== false,
    ca: typeof field('ca') === 'string' ? String(field('ca')) : undefined,
    timeoutMs: 10_000,
  });
  try {
    const answer = await client.request('GET', '/api/v1/auth/info');
    const info = typeof answer.body === 'object' && answer.body !== null ? answer.body : {};
    return { ok: true, status_code: answer.status, auth_info: info };
  } catch (error: unknown) {
    if (error instanceof CrateflowApiError) return { ok: false, status_code: error.statusCode ?? null, error: error.message };
    throw error;
  }
}

function reply(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
