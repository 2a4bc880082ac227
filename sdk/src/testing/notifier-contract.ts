import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import type { Notification } from '../kinds/notifier.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance } from './plugin-harness.js';

/**
 * Options of {@link testNotifierContract}: the service the notifier sends to, and how many messages it has
 * accepted so far (so the kit can tell a send that resolved from one that arrived).
 *
 * @example
 * { service: startFakeNtfy, config: (fake) => ({ url: fake.url, topic: 'test' }), delivered: (fake) => fake.messages.length }
 */
export type NotifierContractOptions<S extends TSchema, V extends ContractService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    delivered?: (service: V) => number;
  };

const ITEM = { id: 'q_contract', artist: 'Low', album: 'Things We Lost in the Fire', year: 2001, source: 'api', reasons: ['Similar to Slowdive'] };

/** One notification of each kind, as the server composes them. */
export const sampleNotifications: readonly Notification[] = [
  {
    id: 'contract-1', kind: 'item', event: 'queue_added', title: 'Low – Things We Lost in the Fire (2001)', text: 'Similar to Slowdive', items: [ITEM],
    decide_url: 'https://music.example.org/decide/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', decide_expires_at: '2026-03-20T12:00:00.000Z', open_url: 'https://music.example.org/queue',
  },
  { id: 'contract-2', kind: 'digest', event: 'queue_added', title: '12 new candidates to decide', text: 'Top 3: Low – One; Low – Two; Low – Three', items: [ITEM, ITEM, ITEM], total: 12, open_url: 'https://music.example.org/queue' },
  { id: 'contract-3', kind: 'event', event: 'download_completed', title: 'Downloaded: Low – Things We Lost in the Fire', text: 'Saved in /music/Low/Things We Lost in the Fire', items: [] },
  // Text from the wild: markup characters and a message longer than any channel takes must not break a send.
  { id: 'contract-4', kind: 'item', event: 'queue_added', title: 'Sigur Rós – ( ) <b>&amp;</b>', text: `${'Ágætis byrjun '.repeat(800)}`, items: [{ ...ITEM, artist: 'Sigur Rós', album: '( )' }] },
];

/**
 * The behaviour every notifier must have, as checks: the lifecycle, and every kind of notification (with markup
 * and an over-long text) sent and, when `delivered` is given, received by the service once each.
 *
 * @example
 * for (const check of notifierContractChecks(plugin, options)) await check.run();
 */
export function notifierContractChecks<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'notifier', S>, options: NotifierContractOptions<S, V>): ContractCheck[] {
  const checks = lifecycleChecks(plugin, 'notifier', options, async (h) => {
    await h.instance.send(sampleNotifications[0] as Notification);
  });
  checks.push({
    name: 'sends an item, a digest, an event and a message with markup and an over-long text, each once',
    run: () =>
      withInstance(plugin, options, async ({ instance, service }) => {
        for (const [i, note] of sampleNotifications.entries()) {
          const before = options.delivered && service ? options.delivered(service) : undefined;
          await instance.send(note);
          if (before !== undefined && options.delivered && service) assert.equal(options.delivered(service), before + 1, `notification ${i} (${note.kind}) was not received exactly once`);
        }
      }),
  });
  return checks;
}

/**
 * Registers the notifier contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testNotifierContract } from '@crateflow/sdk/testing';
 * testNotifierContract(plugin, { service: startFakeNtfy, config: (fake) => ({ url: fake.url, topic: 'test' }) });
 */
export function testNotifierContract<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'notifier', S>, options: NotifierContractOptions<S, V>): void {
  registerContract(`${plugin.manifest.name} (notifier contract)`, notifierContractChecks(plugin, options), options);
}
