import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../../helpers/start-app.js';
import { api } from '../../helpers/api-client.js';

type Problem = { errors?: { path: string; message: string }[] };

const LISTS = ['/api/v1/queue/pending', '/api/v1/queue?status=approved', '/api/v1/wishlist', '/api/v1/downloads', '/api/v1/library', '/api/v1/jobs', '/api/v1/webhooks/deliveries'];
// Numbers the validator takes for integers (1e309 is Infinity once parsed) but SQLite's LIMIT/OFFSET does not.
const HUGE = ['1e309', 'Infinity', '1'.repeat(70), '1e20'];

describe('paging parameters of every list', () => {
  it('answers 400 naming the parameter for a number too large to page by, never 500', async (t) => {
    const app = await startApp({ config: { webhooks: [{ name: 'hook', url: 'http://127.0.0.1:9/hook', events: ['queue_added'] }] } });
    t.after(() => app.close());
    for (const list of LISTS) {
      for (const parameter of ['offset', 'limit']) {
        for (const value of HUGE) {
          const path = `${list}${list.includes('?') ? '&' : '?'}${parameter}=${value}`;
          const res = await api<Problem>(app.baseUrl, 'GET', path);
          assert.equal(res.status, 400, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.ok(res.body.errors?.some((e) => e.path === `query.${parameter}`), `${path}: ${JSON.stringify(res.body)}`);
        }
      }
      const last = await api<{ items: unknown[]; offset: number }>(app.baseUrl, 'GET', `${list}${list.includes('?') ? '&' : '?'}offset=10000000`);
      assert.equal(last.status, 200, `${list} at the largest offset`);
      assert.deepEqual(last.body.items, []);
    }
  });
});
