import { HttpRequestError, systemClock, type HttpClient, type PluginKind } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { DEFAULT_METADATA_POLICY } from '../../../core/net/metadata-policy.schema.js';
import { OutboundAddressPolicy } from '../../../core/net/outbound-address-policy.js';
import { createPluginContext } from '../../../core/plugins/plugin-context-factory.js';
import { Store } from '../../../core/storage/store.js';
import { startBaitServer, type BaitServer } from '../../helpers/bait-server.js';

interface Setup {
  readonly upstream: BaitServer;
  readonly other: BaitServer;
  /** The HTTP client a plugin of `kind` gets, its config naming `upstream` as its API. */
  httpOf(kind: PluginKind): Promise<HttpClient>;
}

async function setUp(t: TestContext): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-plugin-context-'));
  const store = await Store.open(dir);
  const upstream = await startBaitServer({ host: '127.0.0.1', body: '{}', contentType: 'application/json' });
  const other = await startBaitServer({ host: '127.0.0.1', body: 'private', contentType: 'text/plain' });
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    await Promise.all(closers.map((close) => close()));
    await Promise.all([upstream.close(), other.close(), store.close()]);
    await rm(dir, { recursive: true, force: true });
  });
  const deps = {
    store, log: createLogger('silent'), clock: systemClock(), signal: new AbortController().signal, version: '0.0.0-test', newId: () => 'id',
    metadataPolicy: OutboundAddressPolicy.from(DEFAULT_METADATA_POLICY, 'metadata_policy'),
  };
  let count = 0;
  return {
    upstream, other,
    httpOf: async (kind) => {
      const { context, close } = await createPluginContext(`plugin-${count++}`, { api: { url: `${upstream.origin}/1` }, user: 'rob' }, deps, kind);
      closers.push(close);
      return context.http;
    },
  };
}

describe('createPluginContext', () => {
  it('gives a source or preview plugin an HTTP client that reaches the URLs its config names and refuses other loopback hosts', async (t) => {
    const { upstream, other, httpOf } = await setUp(t);
    const kinds: PluginKind[] = ['source', 'preview'];
    for (const kind of kinds) {
      const http = await httpOf(kind);
      assert.equal((await http.request({ url: `${upstream.origin}/1/user/rob/top-artists` })).status, 200, kind);
      await assert.rejects(
        http.request({ url: `${other.origin}/` }),
        (err: unknown) => err instanceof HttpRequestError && err.reason === 'refused-address' && /metadata_policy\.loopback: block/.test(err.message),
        kind,
      );
      await assert.rejects(http.request({ url: 'http://169.254.169.254/latest/meta-data/' }), /link-local/, kind);
    }
    assert.equal(other.hits, 0);
  });

  it('leaves the HTTP client of other kinds (a download client on the LAN) as it was', async (t) => {
    const { other, httpOf } = await setUp(t);
    const http = await httpOf('download-client');
    assert.equal((await http.request({ url: other.origin })).status, 200);
  });
});
