import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
}
interface Answer {
  description: string;
  content?: Record<string, { schema: unknown }>;
}
interface Operation {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, Answer>;
  security?: unknown[];
  'x-auth-modes'?: string[];
}
interface OpenApiDoc {
  openapi: string;
  info: { license?: { name: string; identifier?: string } };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
}

const operationsOf = (doc: OpenApiDoc): [string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]));

describe('GET /api/v1/openapi.json', () => {
  let app: StartedApp;
  let doc: OpenApiDoc;
  before(async () => {
    // Authentication disabled (the default): the mode in which the login routes are not served.
    app = await startApp();
    const answer = await api<OpenApiDoc>(app.baseUrl, 'GET', '/api/v1/openapi.json');
    assert.equal(answer.status, 200);
    doc = answer.body;
  });
  after(() => app.close());

  it('describes every route from the schemas that validate requests, as OpenAPI 3.1', () => {
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['/api/v1/queue/pending', '/api/v1/queue', '/api/v1/queue/{id}/approve', '/api/v1/wishlist/{id}', '/api/v1/library/sync', '/api/v1/jobs/{id}', '/api/v1/sources', '/api/v1/sources/{name}/run']) {
      assert.ok(doc.paths[path], `missing ${path}`);
    }
    const pending = doc.paths['/api/v1/queue/pending']?.get;
    assert.deepEqual(pending?.parameters?.map((p) => p.name), ['limit', 'offset', 'sort', 'order', 'source', 'q', 'hide_owned']);
    assert.deepEqual(doc.paths['/api/v1/queue/{id}/approve']?.post?.parameters?.map((p) => [p.name, p.in]), [['id', 'path']]);
    assert.ok(doc.components.schemas.QueueItem, 'QueueItem is a shared component');
    assert.ok(doc.paths['/api/v1/queue/{id}/approve']?.post?.responses['409'], 'documents the 409');
    assert.doesNotMatch(JSON.stringify(doc), /"\$id"/);
  });

  it('marks a query parameter or body field with a default as not required', () => {
    const required = (path: string) => Object.fromEntries((doc.paths[path]?.get?.parameters ?? []).map((p) => [p.name, p.required]));
    assert.deepEqual(required('/api/v1/queue/pending'), { limit: false, offset: false, sort: false, order: false, source: false, q: false, hide_owned: false });
    assert.deepEqual(required('/api/v1/queue'), { status: true, limit: false, offset: false, before: false });
    // dry_run defaults to false: a client may leave it out.
    const webhookTest = doc.components.schemas.WebhookTestRequest;
    assert.ok(webhookTest?.properties?.dry_run, 'dry_run is described');
    assert.ok(!webhookTest.required?.includes('dry_run'), `required: ${JSON.stringify(webhookTest.required)}`);
  });

  it('declares text/event-stream for the event stream and problem+json for every error', () => {
    const stream = doc.paths['/api/v1/events/stream']?.get?.responses['200'];
    assert.deepEqual(Object.keys(stream?.content ?? {}), ['text/event-stream']);
    for (const [label, op] of operationsOf(doc)) {
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) >= 400 && label !== 'GET /health') assert.deepEqual(Object.keys(answer.content ?? {}), ['application/problem+json'], `${label} ${status}`);
      }
    }
  });

  it('describes GET /health with its 200 and 503 bodies, outside /api/v1', () => {
    const health = doc.paths['/health']?.get;
    assert.ok(health, 'GET /health is in the document');
    assert.deepEqual(health.security, []);
    for (const status of ['200', '503']) {
      assert.deepEqual(health.responses[status]?.content?.['application/json']?.schema, { $ref: '#/components/schemas/HealthReport' }, status);
    }
    assert.deepEqual(doc.components.schemas.HealthReport?.required, ['status', 'version', 'uptime_s']);
  });

  it('gives public operations security [] and every other one a credential, with unique operationIds', () => {
    const publicOnes = operationsOf(doc).filter(([, op]) => Array.isArray(op.security) && op.security.length === 0).map(([label]) => label);
    assert.deepEqual(publicOnes.sort(), ['GET /api/v1/auth/info', 'GET /api/v1/openapi.json', 'GET /health', 'POST /api/v1/auth/login', 'POST /api/v1/auth/logout']);
    for (const [label, op] of operationsOf(doc)) assert.ok(Array.isArray(op.security), `${label} states its security`);
    const ids = operationsOf(doc).map(([, op]) => op.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.equal(doc.paths['/api/v1/queue/{id}/approve']?.post?.operationId, 'post_queue_by_id_approve');
  });

  it('names the server and the license', () => {
    assert.deepEqual(doc.servers, [{ url: '/', description: 'the server that serves this document' }]);
    assert.deepEqual(doc.info.license, { name: 'MIT', identifier: 'MIT' });
  });

  it('lists the basic-mode routes while authentication is disabled, says so, and the server answers them 404', async () => {
    for (const label of ['POST /api/v1/auth/login', 'POST /api/v1/auth/logout', 'POST /api/v1/auth/sessions/revoke']) {
      const [method = '', path = ''] = label.split(' ');
      const op = doc.paths[path]?.[method.toLowerCase()];
      assert.ok(op, `${label} is documented`);
      assert.deepEqual(op['x-auth-modes'], ['basic'], label);
      assert.match(op.description ?? '', /Served only in the `basic` auth mode.*answers 404/, label);
      assert.ok(op.responses['404'], `${label} documents the 404`);
      const answer = await api(app.baseUrl, method, path, {});
      assert.equal(answer.status, 404, label);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }
  });
});
