import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { safeFileName } from '../../../plugins/download-blackhole/safe-file-name.js';

describe('safeFileName', () => {
  it('keeps ordinary names, accents included', () => {
    assert.equal(safeFileName('Sigur Rós'), 'Sigur Rós');
    assert.equal(safeFileName("Sgt. Pepper's Lonely Hearts Club Band"), "Sgt. Pepper's Lonely Hearts Club Band");
  });

  it('replaces path separators and reserved characters, so a name is one segment', () => {
    assert.equal(safeFileName('../../etc'), '__.._etc');
    assert.equal(safeFileName('AC/DC'), 'AC_DC');
    assert.equal(safeFileName('C:\\x*?"<>|'), 'C__x______');
  });

  it('never starts with a dot, so a name is neither hidden nor "." or ".."', () => {
    for (const name of ['.', '..', '...', '.hidden']) assert.ok(!safeFileName(name).startsWith('.'), name);
  });

  it('turns control characters into spaces and collapses white space', () => {
    assert.equal(safeFileName('a\u0000b\nc\t\td'), 'a b c d');
  });

  it('bounds the length in characters without splitting a surrogate pair', () => {
    assert.equal([...safeFileName('x'.repeat(500))].length, 80);
    assert.equal(safeFileName('😀'.repeat(100), 10), '😀'.repeat(10));
  });

  it('answers "_" for a name with nothing left', () => {
    assert.equal(safeFileName(''), '_');
    assert.equal(safeFileName('   '), '_');
  });
});
