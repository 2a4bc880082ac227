/**
 * The plugin API version this sdk describes. It equals the sdk's semver major: a plugin built against
 * `@crateflow/sdk@1.x` declares `apiVersion: 1`, and a server accepts it when 1 is among the versions it supports.
 * Within one major, changes are additive only (new optional context members, which plugins feature-detect).
 *
 * @example
 * manifest: { name: 'sink-ntfy', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: Config }
 */
export const PLUGIN_API_VERSION = 1;
