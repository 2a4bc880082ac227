import { isPreviewOrigin, type Logger } from '@crateflow/sdk';
import type { LoadedPluginOf } from '../plugins/plugin-host.js';

/**
 * The origins a preview provider's URLs may come from, as the UI's Content-Security-Policy lists them. An origin
 * that is not a plain `scheme://host[:port]` (or `*.host`) is left out and logged: written into the policy it could
 * widen it (a bare `*`, a `;` starting another directive).
 */
export function previewOriginsOf(provider: LoadedPluginOf<'preview'> | undefined, log: Logger): string[] {
  if (!provider) return [];
  const origins: unknown = provider.instance.origins;
  const listed = Array.isArray(origins) ? origins : [];
  const valid = listed.filter((origin): origin is string => typeof origin === 'string' && isPreviewOrigin(origin));
  if (valid.length < listed.length || listed.length === 0) {
    log.error({ plugin: provider.name, origins: listed }, 'the preview provider lists origins that are not like https://cdn.example.com; its previews from elsewhere will not play');
  }
  return [...new Set(valid)];
}
