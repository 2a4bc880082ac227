import { definePlugin, PLUGIN_API_VERSION, Type } from '@crateflow/sdk';

// Scaffolding while the webhooks sink is being written: accepts the config and delivers nothing.
const Config = Type.Array(Type.Unknown());

export default definePlugin({
  manifest: { name: 'webhooks', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
  create: () => ({ deliver: async () => undefined }),
});
