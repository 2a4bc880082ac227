import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { api } from '../../helpers/api-client.js';
import { UI_PAGES } from '../../../core/ui/serve-ui.js';
import { UI_PUBLIC_DIR } from '../../../core/ui/ui-assets.js';

/** A raw GET (no fetch: undici adds `Cache-Control: no-cache` to conditional requests, which defeats 304s). */
function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveUi()', () => {
  let app: StartedApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('answers every page path with the shell and security headers', async () => {
    for (const path of ['/', '/login', '/queue', '/wishlist', '/downloads', '/library', '/sources', '/webhooks']) {
      const res = await get(app.baseUrl, path, { accept: 'text/html' });
      assert.equal(res.status, 200, path);
      assert.match(res.body, /<script type="module" src="\/assets\/main.js"><\/script>/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['referrer-policy'], 'same-origin');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    }
  });

  it('answers with the shell for exactly the pages the client routes, and the navigation links only to those', async () => {
    // The client's page table and navigation are plain modules (no build step), so they are read as text here.
    const pages = pathsIn(await readFile(join(UI_PUBLIC_DIR, 'assets/app.js'), 'utf8'), /const PAGES = \{([^]*?)\n\};/, /^\s*'(\/[^']*)':/gm);
    const nav = pathsIn(await readFile(join(UI_PUBLIC_DIR, 'assets/components/layout.js'), 'utf8'), /const NAV = \[([^]*?)\n\];/, /^\s*\['(\/[^']*)'/gm);
    assert.deepEqual([...UI_PAGES].sort(), [...pages, '/login'].sort());
    assert.deepEqual([...nav].sort(), [...pages].sort());
    assert.ok(pages.includes('/library'));
  });

  it('serves the vendor modules named in the import map as JavaScript', async () => {
    for (const path of ['/vendor/preact.mjs', '/vendor/preact-hooks.mjs', '/vendor/htm.mjs', '/assets/app.js']) {
      const res = await get(app.baseUrl, path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    }
  });

  it('answers 304 to a matching If-None-Match and compresses when asked', async () => {
    const first = await get(app.baseUrl, '/assets/app.css', { 'accept-encoding': 'br, gzip' });
    assert.equal(first.headers['content-encoding'], 'br');
    assert.equal(first.headers['cache-control'], 'no-cache');
    const etag = String(first.headers.etag);
    const again = await get(app.baseUrl, '/assets/app.css', { 'if-none-match': etag });
    assert.equal(again.status, 304);
  });

  it('serves nothing outside the UI folder, whatever the path says', async () => {
    for (const path of ['/assets/../../ui-assets.ts', '/%2e%2e/%2e%2e/package.json', '/assets/%2e%2e/index.html', '/..%2f..%2fpackage.json', '/vendor/../package.json', '/package.json', '/assets']) {
      const res = await get(app.baseUrl, path);
      assert.equal(res.status, 404, path);
    }
  });
});

/** The paths listed in the block `block` matches in a module's source, one per `entry` match. */
function pathsIn(source: string, block: RegExp, entry: RegExp): string[] {
  const body = block.exec(source)?.[1];
  assert.ok(body, `no block matching ${block} in the module`);
  return [...body.matchAll(entry)].map((m) => m[1] ?? '');
}
