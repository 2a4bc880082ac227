import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import { DomainEvent, EVENT_TYPES, type EventType } from '../records.js';
import { assertRecord } from './check-record.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance, type Harness } from './plugin-harness.js';
import { webhookAdminChecks } from './webhook-admin-checks.js';

/**
 * The service behind an event sink during a check. With `deliveries()`, the kit can tell whether an event sent
 * twice (same id) reached the service once.
 *
 * @example
 * service: async () => { const fake = await startFakeNtfy(); return { url: fake.url, close: fake.close, deliveries: () => fake.messages.length }; }
 */
export interface EventSinkService extends ContractService {
  /** How many deliveries the service has received so far. */
  deliveries?(): number | Promise<number>;
}

/**
 * Options of {@link testEventSinkContract}.
 *
 * @example
 * { service: startFakeNtfy, config: (fake) => ({ topic_url: fake.url }) }
 */
export type EventSinkContractOptions<S extends TSchema, V extends EventSinkService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    /** Simulated time the kit lets pass after each delivery, for sinks that send from a timer (default 0). */
    settleMs?: number;
  };

/**
 * A valid event of `type`, as the server would deliver it.
 *
 * @example
 * await sink.deliver(sampleEvent('download_completed', { id: 'ev-1' }));
 */
export function sampleEvent(type: EventType, overrides: Partial<DomainEvent> = {}): DomainEvent {
  const data: DomainEvent['data'] = { artist: 'Low', album: 'Double Negative', mbid: 'c2b4bd76-6c6b-4b5d-8b9d-5d1d1c0b4f5e' };
  if (type === 'download_completed') data.download_path = '/downloads/Low/Double Negative';
  if (type === 'queue_added') data.id = 'q-0001';
  return { id: `ev-${type}`, type, timestamp: '2026-01-01T00:00:00.000Z', data, ...overrides };
}

/**
 * The behaviour every event sink must have, as checks: it takes a valid event of every type, and an event seen
 * again (same id, as after a restart) is not sent twice. A sink that offers the webhook-admin capability is
 * checked on it too (see webhookAdminChecks).
 *
 * @example
 * for (const check of eventSinkContractChecks(plugin, { config: {} })) await check.run();
 */
export function eventSinkContractChecks<S extends TSchema, V extends EventSinkService>(
  plugin: PluginDefinition<'event-sink', S>,
  options: EventSinkContractOptions<S, V>,
): ContractCheck[] {
  const deliver = async (h: Harness<'event-sink', S, V>, event: DomainEvent) => {
    assertRecord(DomainEvent, event, 'the sample event');
    await h.instance.deliver(event);
    await h.context.clock.advance(options.settleMs ?? 0);
  };
  const checks = lifecycleChecks(plugin, 'event-sink', options, (h) => deliver(h, sampleEvent('queue_approved')));
  checks.push({
    name: `delivers a valid event of every type (${EVENT_TYPES.join(', ')}) without throwing`,
    run: () =>
      withInstance(plugin, options, async (h) => {
        for (const type of EVENT_TYPES) await deliver(h, sampleEvent(type));
      }),
  });
  checks.push({
    name: 'sends an event delivered twice with the same id only once',
    run: () =>
      withInstance(plugin, options, async (h) => {
        const deliveries = h.service?.deliveries?.bind(h.service);
        assert.ok(deliveries, 'give the kit a service with deliveries() (how many deliveries arrived) to check idempotency');
        const before = await deliveries();
        const event = sampleEvent('download_completed', { id: 'ev-repeated' });
        await deliver(h, event);
        await deliver(h, event);
        const sent = (await deliveries()) - before;
        assert.equal(sent, 1, `the event reached the service ${sent} time(s); deliver() must be idempotent on event.id`);
      }),
  });
  checks.push(...webhookAdminChecks(plugin, options));
  return checks;
}

/**
 * Registers the event-sink contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testEventSinkContract } from '@crateflow/sdk/testing';
 * testEventSinkContract(plugin, { service: startFakeNtfy, config: (fake) => ({ topic_url: fake.url }) });
 */
export function testEventSinkContract<S extends TSchema, V extends EventSinkService>(
  plugin: PluginDefinition<'event-sink', S>,
  options: EventSinkContractOptions<S, V>,
): void {
  registerContract(`${plugin.manifest.name} (event-sink contract)`, eventSinkContractChecks(plugin, options), options);
}
