import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
}

describe('GET /api/v1/openapi.json', () => {
  let app: StartedApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('describes every route from the schemas that validate requests, as OpenAPI 3.1', async () => {
    const { status, body } = await api<OpenApiDoc>(app.baseUrl, 'GET', '/api/v1/openapi.json');
    assert.equal(status, 200);
    assert.equal(body.openapi, '3.1.0');
    for (const path of ['/api/v1/queue/pending', '/api/v1/queue', '/api/v1/queue/{id}/approve', '/api/v1/wishlist/{id}', '/api/v1/library/sync', '/api/v1/jobs/{id}']) {
      assert.ok(body.paths[path], `missing ${path}`);
    }
    const pending = body.paths['/api/v1/queue/pending']?.get;
    assert.deepEqual(pending?.parameters?.map((p) => p.name), ['limit', 'offset', 'sort', 'order', 'source', 'q']);
    assert.deepEqual(body.paths['/api/v1/queue/{id}/approve']?.post?.parameters?.map((p) => [p.name, p.in]), [['id', 'path']]);
    assert.ok(body.components.schemas.QueueItem, 'QueueItem is a shared component');
    assert.ok(body.paths['/api/v1/queue/{id}/approve']?.post?.responses['409'], 'documents the 409');
    assert.doesNotMatch(JSON.stringify(body), /"\$id"/);
  });
});
