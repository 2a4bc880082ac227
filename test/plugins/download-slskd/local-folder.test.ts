import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localFolder } from '../../../plugins/download-slskd/local-folder.js';

describe('localFolder', () => {
  it('keeps only the last remote folder segment under the downloads directory', () => {
    assert.equal(localFolder('/srv/downloads', '@@abcde\\Music\\Low\\Double Negative (2018)'), '/srv/downloads/Double Negative (2018)');
  });

  it('splits remote paths on / as well as \\, as slskd does for non-Windows peers', () => {
    assert.equal(localFolder('/srv/downloads', '@@abcde\\Music\\AC/DC\\Live 1/2'), '/srv/downloads/2');
    assert.equal(localFolder('/srv/downloads', 'music/Portishead/Dummy (1994)/FLAC'), '/srv/downloads/FLAC');
  });

  it('replaces NUL, which Linux cannot hold in a file name, with _', () => {
    assert.equal(localFolder('/srv/downloads', '@@abcde\\Music\\Odd\u0000Name'), '/srv/downloads/Odd_Name');
  });

  it('answers the downloads directory itself for files shared at the root', () => {
    assert.equal(localFolder('/srv/downloads', ''), '/srv/downloads');
  });
});
