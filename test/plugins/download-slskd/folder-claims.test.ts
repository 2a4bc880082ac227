import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MemoryStorage } from '@crateflow/sdk/testing';
import { FolderClaims } from '../../../plugins/download-slskd/folder-claims.js';

describe('FolderClaims (slskd before 0.26)', () => {
  it('gives a local folder to one download at a time, refuses one that already exists, and frees it on release', async (t) => {
    const downloads = await mkdtemp(join(tmpdir(), 'slskd-claims-'));
    t.after(() => rm(downloads, { recursive: true, force: true }));
    const claims = new FolderClaims(new MemoryStorage());
    const flac = join(downloads, 'FLAC');

    assert.equal(await claims.claim(flac, 'dummy'), undefined);
    assert.equal(await claims.claim(flac, 'dummy'), undefined, 'the holder may claim again (a retry of the same candidate)');
    assert.match((await claims.claim(flac, 'mezzanine')) ?? '', /FLAC is in use by another download/);

    await mkdir(flac);
    await claims.release('dummy');
    assert.match((await claims.claim(flac, 'mezzanine')) ?? '', /FLAC already exists and holds something else/, 'a finished album still sits there');
    assert.equal(await claims.claim(join(downloads, 'Mezzanine (1998)'), 'mezzanine'), undefined);
  });
});
