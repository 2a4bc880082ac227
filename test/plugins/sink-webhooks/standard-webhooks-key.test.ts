import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { secretFormProblems, standardWebhooksKey, whsecFormProblem } from '../../../plugins/sink-webhooks/standard-webhooks-key.js';

describe('standardWebhooksKey', () => {
  it('uses a plain secret as its UTF-8 bytes', () => {
    assert.deepEqual(standardWebhooksKey('clé'), Buffer.from([0x63, 0x6c, 0xc3, 0xa9]));
  });

  it('decodes the base64 after whsec_, as Standard Webhooks libraries do', () => {
    assert.deepEqual(standardWebhooksKey('whsec_AAEC/w=='), Buffer.from([0, 1, 2, 255]));
  });
});

describe('whsecFormProblem', () => {
  it('accepts any secret without the prefix and padded standard base64 after it', () => {
    for (const secret of ['s3cret', 'whsec', 'WHSEC_not-checked', 'whsec_YWJj', 'whsec_YWI=', 'whsec_YQ==', 'whsec_+/+/']) {
      assert.equal(whsecFormProblem(secret), undefined, secret);
    }
  });

  it('refuses what the official libraries cannot decode: nothing, missing padding, URL-safe letters, spaces', () => {
    for (const secret of ['whsec_', 'whsec_YWI', 'whsec_YW-_', 'whsec_YW Jj', 'whsec_YQ=']) {
      assert.match(whsecFormProblem(secret) ?? '', /must be the key in padded base64/, secret);
    }
  });

  it('names each broken secret by its index and never repeats the secret', () => {
    const problems = secretFormProblems([{ secret: 'fine' }, {}, { secret: 'whsec_broken!secret' }]);
    assert.deepEqual(problems.map((p) => p.path), ['[2].secret']);
    assert.ok(!problems[0]?.message.includes('broken!secret'));
  });
});
