import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hideUrlsIn, hintUrl, hintUrlsIn } from '../../../core/logging/redact-urls.js';

describe('hintUrl', () => {
  it('keeps scheme, host and port, and the last four characters of a long path and query', () => {
    assert.equal(hintUrl('http://ha.lan:8123/api/webhook/s3cr3t-id-0123456789'), 'http://ha.lan:8123/…6789');
    assert.equal(hintUrl('https://u:p@hooks.example.com/services/T0/B0/XyZ?token=abc'), 'https://hooks.example.com/…=abc');
  });

  it('shows no hint for a short path and keeps a bare origin as it is', () => {
    assert.equal(hintUrl('http://127.0.0.1:1880/hook'), 'http://127.0.0.1:1880/…');
    assert.equal(hintUrl('http://user:pass@nas.lan'), 'http://nas.lan');
    assert.equal(hintUrl('http://[fd00::5]:8080/'), 'http://[fd00::5]:8080/');
  });

  it('drops a fragment', () => {
    assert.equal(hintUrl('http://h.lan/#secret-fragment'), 'http://h.lan/');
    assert.equal(hintUrl('http://h.lan/hook#secret-fragment-0123456789'), 'http://h.lan/…');
  });
});

describe('hintUrlsIn and hideUrlsIn', () => {
  it('reduce every URL inside a JSON log line, stopping at the closing quote', () => {
    const line = JSON.stringify({ msg: 'failed', url: 'http://a:b@x.lan/p?api_key=k-123456789', err: 'GET https://t:s@y.lan/very/long/token/path failed' });
    const out = hintUrlsIn(line);
    assert.deepEqual(JSON.parse(out), { msg: 'failed', url: 'http://x.lan/…6789', err: 'GET https://y.lan/…path failed' });
  });

  it('hides URLs and IPv4 addresses entirely for the public', () => {
    assert.equal(hideUrlsIn('at http://a:b@10.0.0.5:4533/x failed: connect ECONNREFUSED 10.0.0.5:4533'), 'at <url> failed: connect ECONNREFUSED <address>');
  });
});
