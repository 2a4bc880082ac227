import { PLUGIN_KINDS, type PluginDefinition, type PluginKind } from '@crateflow/sdk';
import type { TSchema } from 'typebox';

/** The plugin API versions this server can host. */
export const SUPPORTED_API_VERSIONS: readonly number[] = [1];

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** The shared services this server offers plugins through their context. */
const SHARED_SERVICES: readonly unknown[] = ['musicbrainz'];

/**
 * Checks that a module's default export is a plugin definition this server can host. Returns every problem
 * found (empty when it is fine), each phrased for the person who wrote the config.
 */
export function checkManifest(exported: unknown, use: string): { definition?: PluginDefinition; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(exported)) return { problems: [`"${use}" has no default export with a manifest (use definePlugin from @crateflow/sdk)`] };
  const manifest = exported.manifest;
  if (!isRecord(manifest)) return { problems: [`"${use}" exports no manifest (use definePlugin from @crateflow/sdk)`] };
  const name = typeof manifest.name === 'string' ? manifest.name : undefined;
  const label = name ?? use;
  if (!name || !NAME.test(name)) problems.push(`plugin "${label}": manifest.name must be lower-case letters, digits and dashes`);
  if (typeof manifest.kind !== 'string' || !isKind(manifest.kind)) {
    problems.push(`plugin "${label}": manifest.kind must be one of ${PLUGIN_KINDS.join(', ')} (got ${JSON.stringify(manifest.kind)})`);
  }
  if (typeof manifest.apiVersion !== 'number') {
    problems.push(`plugin "${label}": manifest.apiVersion must be a number`);
  } else if (!SUPPORTED_API_VERSIONS.includes(manifest.apiVersion)) {
    problems.push(
      `plugin "${label}" was built for plugin API ${manifest.apiVersion}, this server supports ${SUPPORTED_API_VERSIONS.join(', ')}`,
    );
  }
  if (!isSchema(manifest.configSchema)) problems.push(`plugin "${label}": manifest.configSchema must be a typebox schema`);
  if (manifest.version !== undefined && typeof manifest.version !== 'string') problems.push(`plugin "${label}": manifest.version must be a string`);
  if (manifest.uses !== undefined && (!Array.isArray(manifest.uses) || !manifest.uses.every((service) => SHARED_SERVICES.includes(service)))) {
    problems.push(`plugin "${label}": manifest.uses must list only ${SHARED_SERVICES.join(', ')}`);
  }
  if (typeof exported.create !== 'function') problems.push(`plugin "${label}": create must be a function`);
  if (problems.length > 0) return { problems };
  // Every member the host relies on has been checked above.
  return { definition: exported as unknown as PluginDefinition, problems };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isKind(kind: string): kind is PluginKind {
  return PLUGIN_KINDS.some((known) => known === kind);
}

function isSchema(value: unknown): value is TSchema {
  return isRecord(value) && (typeof value.type === 'string' || Array.isArray(value.anyOf) || Array.isArray(value.oneOf));
}
