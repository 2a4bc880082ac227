import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPluginEntries } from '../../helpers/read-stored.js';
import { systemClock, type Clock, type EventSink, type Static, type WebhookAdmin, type WebhookDeliveryPage, type WebhookDeliveryQuery, type WebhookTarget } from '@crateflow/sdk';
import webhooksPlugin from '@crateflow/sink-webhooks';
import { createLogger } from '../../../core/logging/create-logger.js';
import { createPluginContext } from '../../../core/plugins/plugin-context-factory.js';
import { compileStrict } from '../../../core/schema/ajv.js';
import { formatSchemaErrors } from '../../../core/schema/format-schema-errors.js';
import { Store } from '../../../core/storage/store.js';
import { newId } from '../../../core/ids/new-id.js';

/** The built-in sink's webhook-admin capability, whose reads answer synchronously (checked, not assumed). */
export interface SyncWebhookAdmin extends WebhookAdmin {
  targets(): WebhookTarget[];
  deliveries(query: WebhookDeliveryQuery): WebhookDeliveryPage;
}

export interface StartedSink {
  sink: EventSink;
  admin: SyncWebhookAdmin;
  dataDir: string;
  /** The plugin's storage file, parsed (what a restart would read). */
  readStoredEntries(): Promise<Record<string, unknown>>;
  /** Stops the plugin and flushes its storage; keeps the data dir. */
  stop(): Promise<void>;
  /** Stops the plugin and removes the data dir (unless it was given). */
  close(): Promise<void>;
}

export interface StartSinkOptions {
  webhooks: unknown[];
  clock?: Clock;
  /** Reuse a data dir (a restart); a new temp dir otherwise. */
  dataDir?: string;
  version?: string;
  /** The host's outbound policy (`webhooks_policy`), handed to the plugin as `refuseTargetAddress`. */
  refuseTargetAddress?: (address: string) => string | undefined;
}

/**
 * Builds the webhooks plugin the way the host does (config validated with defaults by the same ajv, a real
 * storage-backed context), starts it, and returns it with its admin interface.
 */
export async function startWebhookSink(options: StartSinkOptions): Promise<StartedSink> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'crateflow-webhooks-')));
  const config = structuredClone(options.webhooks);
  const validate = compileStrict<Static<typeof webhooksPlugin.manifest.configSchema>>(webhooksPlugin.manifest.configSchema);
  if (!validate(config)) throw new Error(formatSchemaErrors(validate.errors, 'webhooks').map((p) => `${p.path}: ${p.message}`).join('\n'));
  const store = await Store.open(dataDir);
  const clock = options.clock ?? systemClock();
  const shutdown = new AbortController();
  const { context, close: closeContext } = await createPluginContext('webhooks', config, {
    store,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    clock,
    signal: shutdown.signal,
    version: options.version ?? '9.8.7',
    newId: () => newId(clock.now()),
    ...(options.refuseTargetAddress ? { refuseTargetAddress: options.refuseTargetAddress } : {}),
  });
  const sink = await webhooksPlugin.create(context);
  const offered = sink.webhookAdmin;
  if (!offered) throw new Error('the webhooks plugin offers no webhook-admin capability');
  const admin: SyncWebhookAdmin = {
    test: (input) => offered.test(input),
    redeliver: (id) => offered.redeliver(id),
    targets: () => answeredAtOnce(offered.targets(), 'targets()'),
    deliveries: (query) => answeredAtOnce(offered.deliveries(query), 'deliveries()'),
  };
  await sink.start?.();
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      shutdown.abort();
      await sink.stop?.();
      await closeContext();
      await store.close();
    })());
  return {
    sink,
    admin,
    dataDir,
    readStoredEntries: () => readPluginEntries(dataDir, 'webhooks'),
    stop,
    async close() {
      await stop();
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The capability may answer with a promise; the built-in sink reads from memory and never does. */
function answeredAtOnce<T>(answer: T | Promise<T>, what: string): T {
  if (answer instanceof Promise) throw new Error(`the webhooks plugin answered ${what} with a promise; these tests read it synchronously`);
  return answer;
}
