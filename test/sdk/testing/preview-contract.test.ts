import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definePlugin, isFromOrigins, isPreviewOrigin, PLUGIN_API_VERSION, Type, type PreviewTrack } from '@crateflow/sdk';
import { previewContractChecks, testPreviewContract } from '@crateflow/sdk/testing';

type Flaw = 'none' | 'foreign-url' | 'malformed-track' | 'throws-when-missing' | 'ignores-abort' | 'origin-with-path';

const Config = Type.Object({ cdn: Type.String({ default: 'https://cdn.example.com', description: 'where previews live' }) }, { additionalProperties: false });
const ALBUM = { artist: 'Low', album: 'Things We Lost in the Fire' };

/** An in-memory provider that knows one album of two tracks, with an optional flaw. */
function sampleProvider(flaw: Flaw = 'none') {
  return definePlugin({
    manifest: { name: 'sample-preview', kind: 'preview', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config }) => ({
      origins: flaw === 'origin-with-path' ? [`${config.cdn}/previews`] : [config.cdn],
      async findPreviews({ artist, album, signal }): Promise<PreviewTrack[]> {
        if (signal.aborted && flaw !== 'ignores-abort') return [];
        if (artist !== ALBUM.artist || album !== ALBUM.album) {
          if (flaw === 'throws-when-missing') throw new Error('404 from the service');
          return [];
        }
        const base = flaw === 'foreign-url' ? 'https://elsewhere.example.net' : config.cdn;
        const tracks = [1, 2].map((n) => ({ title: `Track ${n}`, artist, position: n, duration_s: 200, preview_url: `${base}/${n}.mp3`, source: 'sample' }));
        return flaw === 'malformed-track' ? JSON.parse(JSON.stringify([{ title: 'Track 1', preview_url: 'ftp://x' }])) : tracks;
      },
    }),
  });
}

testPreviewContract(sampleProvider(), { config: {}, album: ALBUM, minTracks: 2 });

function check(flaw: Flaw, name: RegExp) {
  const found = previewContractChecks(sampleProvider(flaw), { config: {}, album: ALBUM }).find((c) => name.test(c.name));
  assert.ok(found, `no check matching ${name}`);
  return found;
}

describe('preview contract kit', () => {
  it('fails a provider whose preview URL is not from its origins, naming the URL', async () => {
    await assert.rejects(check('foreign-url', /from one of its origins/).run(), /https:\/\/elsewhere\.example\.net\/1\.mp3 is not from any of https:\/\/cdn\.example\.com/);
  });

  it('fails a provider that answers a malformed track, naming the field', async () => {
    await assert.rejects(check('malformed-track', /valid preview tracks/).run(), /track 0 is not valid[\s\S]*artist/);
  });

  it('fails a provider that throws for an album it does not know', async () => {
    await assert.rejects(check('throws-when-missing', /does not know/).run(), /404 from the service/);
  });

  it('fails a provider that still answers tracks after the signal was aborted', async () => {
    await assert.rejects(check('ignores-abort', /signal is aborted/).run(), /answered tracks although the signal was aborted/);
  });

  it('fails a provider whose origin carries a path', async () => {
    await assert.rejects(check('origin-with-path', /lists at least one origin/).run(), /https:\/\/cdn\.example\.com\/previews" is not like/);
  });

  it('fails a provider with fewer previews than the author promised', async () => {
    const pages = previewContractChecks(sampleProvider(), { config: {}, album: ALBUM, minTracks: 3 }).find((c) => /valid preview tracks/.test(c.name));
    assert.ok(pages);
    await assert.rejects(pages.run(), /found 2 preview\(s\), expected at least 3/);
  });
});

describe('preview origins', () => {
  it('accepts scheme and host with an optional *. and port, and nothing with a path or a wildcard elsewhere', () => {
    for (const good of ['https://cdn.example.com', 'https://*.dzcdn.net', 'http://127.0.0.1:8080', 'http://[::1]:9000']) assert.ok(isPreviewOrigin(good), good);
    for (const bad of ['https://cdn.example.com/x', 'https://cdn.*.net', 'ftp://cdn.example.com', 'https://', '*']) assert.ok(!isPreviewOrigin(bad), bad);
  });

  it('matches a URL as a CSP media-src does: scheme, host or subdomain for *., and port', () => {
    assert.ok(isFromOrigins('https://cdnt-preview.dzcdn.net/api/1/1/a.mp3?hdnea=exp', ['https://*.dzcdn.net']));
    assert.ok(!isFromOrigins('https://dzcdn.net/a.mp3', ['https://*.dzcdn.net']), 'the wildcard covers subdomains only');
    assert.ok(!isFromOrigins('https://evil-dzcdn.net/a.mp3', ['https://*.dzcdn.net']));
    assert.ok(!isFromOrigins('http://cdnt-preview.dzcdn.net/a.mp3', ['https://*.dzcdn.net']), 'the scheme must match');
    assert.ok(isFromOrigins('http://127.0.0.1:4000/a.mp3', ['http://127.0.0.1:4000']));
    assert.ok(!isFromOrigins('http://127.0.0.1:4001/a.mp3', ['http://127.0.0.1:4000']), 'the port must match');
    assert.ok(isFromOrigins('https://cdn.example.com:443/a.mp3', ['https://cdn.example.com']), 'the default port is the same origin');
    assert.ok(!isFromOrigins('not a url', ['https://cdn.example.com']));
  });
});
