import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definePlugin, PLUGIN_API_VERSION, Type, type LibraryAlbum } from '@crateflow/sdk';
import { libraryContractChecks, testLibraryContract } from '@crateflow/sdk/testing';

type Flaw = 'none' | 'ignores-abort' | 'malformed-album' | 'yields-object';

const Config = Type.Object({ pages: Type.Integer({ minimum: 1, default: 3, description: 'pages in the library' }) }, { additionalProperties: false });

/** An in-memory library of `pages` pages of two albums, with an optional flaw. */
function sampleLibrary(flaw: Flaw = 'none') {
  return definePlugin({
    manifest: { name: 'sample-library', kind: 'library', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config }) => ({
      async *albums(signal: AbortSignal): AsyncIterable<LibraryAlbum[]> {
        for (let page = 0; page < config.pages; page++) {
          if (signal.aborted && flaw !== 'ignores-abort') return;
          const albums = [{ artist: 'Low', album: `Album ${page}a`, year: 2000 + page }, { artist: 'Low', album: `Album ${page}b` }];
          if (flaw === 'malformed-album') yield JSON.parse(JSON.stringify([{ artist: 'Low', year: 'soon' }]));
          else if (flaw === 'yields-object') yield JSON.parse(JSON.stringify({ albums }));
          else yield albums;
        }
      },
    }),
  });
}

testLibraryContract(sampleLibrary(), { config: { pages: 3 }, minPages: 2, minAlbums: 4 });

function check(flaw: Flaw, name: RegExp) {
  const found = libraryContractChecks(sampleLibrary(flaw), { config: {} }).find((c) => name.test(c.name));
  assert.ok(found, `no check matching ${name}`);
  return found;
}

describe('library contract kit', () => {
  it('fails a library that keeps yielding after the signal aborts', async () => {
    await assert.rejects(check('ignores-abort', /signal aborts/).run(), /yielded 2 page\(s\) after the signal was aborted/);
  });

  it('fails a library that yields an album without a name, naming the path', async () => {
    await assert.rejects(check('malformed-album', /valid library albums/).run(), /album 0 of page 1 is not valid[\s\S]*\/year: must be integer/);
  });

  it('fails a library that yields something other than an array', async () => {
    await assert.rejects(check('yields-object', /valid library albums/).run(), /must yield arrays of albums/);
  });

  it('fails a library with fewer pages than the author promised', async () => {
    const checks = libraryContractChecks(sampleLibrary(), { config: { pages: 1 }, minPages: 2 });
    const pages = checks.find((c) => /valid library albums/.test(c.name));
    assert.ok(pages);
    await assert.rejects(pages.run(), /yielded 1 page\(s\), expected at least 2/);
  });
});
