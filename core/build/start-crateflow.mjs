// Plain JavaScript on purpose, like ensure-built.mjs: `npm start` after `npm ci --omit=dev` has no tsx.
// Builds the bundle only when a source changed, then runs it in this same process (no second node start-up):
// the bundle's main() reads process.argv.slice(2), which is this script's arguments (--config PATH).
import { pathToFileURL } from 'node:url';
import { BUNDLE, ensureBuilt } from './ensure-built.mjs';

const built = await ensureBuilt();
if (built.length > 0) process.stderr.write(`crateflow: built ${built.join(', ')}\n`);
await import(pathToFileURL(BUNDLE).href);
