import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lucenePhrase } from '../../../core/metadata/lucene-phrase.js';

describe('lucenePhrase', () => {
  it('quotes a value and escapes the quotes and backslashes inside it', () => {
    assert.equal(lucenePhrase('OK Computer'), '"OK Computer"');
    assert.equal(lucenePhrase('Songs: "Blue"'), String.raw`"Songs: \"Blue\""`);
    assert.equal(lucenePhrase(String.raw`AC\DC`), String.raw`"AC\\DC"`);
  });

  it('leaves the other Lucene specials alone, since inside a phrase they are plain text', () => {
    assert.equal(lucenePhrase('(What’s the Story) Morning Glory? + - && ||'), '"(What’s the Story) Morning Glory? + - && ||"');
  });
});
