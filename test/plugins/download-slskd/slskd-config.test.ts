import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import slskd from '@crateflow/download-slskd';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

const base = { url: 'http://127.0.0.1:5030', api_key: 'k', downloads_dir: '/srv/slskd/downloads' };
const YEAR_MS = 365 * 86_400_000;

describe('download-slskd config', () => {
  for (const key of ['retry_after_no_results_ms', 'retry_after_all_failed_ms']) {
    it(`takes a ${key} of a year and refuses a longer one, naming the key`, async () => {
      const harness = createPluginTestContext(slskd, { ...base, [key]: YEAR_MS });
      await harness.close();
      assert.throws(() => createPluginTestContext(slskd, { ...base, [key]: YEAR_MS + 1 }), new RegExp(`config\\.${key}: must be <= ${YEAR_MS}`));
    });
  }
});
