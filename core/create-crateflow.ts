import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Server } from 'node:http';
import type Koa from 'koa';
import { systemClock, type Clock, type Logger } from '@crateflow/sdk';
import { createApp } from './app.js';
import type { AppConfig } from './config/app-config.schema.js';
import { ConfigError } from './config/config-error.js';
import { pathsInUse } from './config/paths-in-use.js';
import { pluginCreateProblems } from './config/plugin-create-problems.js';
import { resolveConfigPaths } from './config/resolve-config-paths.js';
import { Tokens } from './di/tokens.js';
import { AllowedHosts } from './auth/allowed-hosts.js';
import { DefaultAuthenticator } from './auth/default-authenticator.js';
import { CredentialCheckGate } from './auth/credential-check-gate.js';
import { EventBus } from './events/event-bus.js';
import { answerMalformedRequests } from './http/answer-malformed-requests.js';
import type { ReservedServer } from './http/reserve-port.js';
import { createHttpServer } from './http/create-http-server.js';
import { buildOpenApi } from './http/openapi.js';
import { API_PREFIX } from './http/api-router.js';
import type { RouteSpec } from './http/route.js';
import { healthHandler, healthOperation } from './http/routes/health.routes.js';
import { metaRoutes } from './http/routes/meta.routes.js';
import { authInfoRoutes } from './http/routes/auth-info.routes.js';
import { authRoutes } from './http/routes/auth.routes.js';
import { authSessionRoutes } from './http/routes/auth-sessions.routes.js';
import { webhookRoutes } from './http/routes/webhooks.routes.js';
import { chooseWebhookAdmin } from './webhooks/choose-webhook-admin.js';
import { GuardedWebhookAdmin } from './webhooks/guarded-webhook-admin.js';
import { statsRoutes } from './stats/stats.routes.js';
import { eventStreamRoutes } from './events/event-stream.routes.js';
import { DownloadService } from './downloads/download-service.js';
import { LibraryService } from './library/library-service.js';
import { QueueService } from './queue/queue-service.js';
import { WishlistService } from './wishlist/wishlist-service.js';
import { loadUiAssets } from './ui/ui-assets.js';
import { serveUi } from './ui/serve-ui.js';
import { PreviewService } from './previews/preview-service.js';
import { newId } from './ids/new-id.js';
import { OutboundAddressPolicy } from './net/outbound-address-policy.js';
import { checkNamedUpstreams } from './net/check-named-upstreams.js';
import { createLogger } from './logging/create-logger.js';
import { checkPlugins, createPlugins, instanceNameOf, type LoadedPlugins } from './plugins/plugin-host.js';
import { planPluginMounts, slotChoice } from './plugins/plugin-mounts.js';
import { DamagedDatabaseError } from './integrity/damaged-database-error.js';
import { DataDirInUseError } from './storage/data-dir-lock.js';
import { NewerDatabaseError } from './storage/schema-migrations.js';
import { sqliteDriverError } from './errors/sqlite-driver-error.js';
import { Store } from './storage/store.js';
import { EventLogTable } from './events/event-log-table.js';
import { importPreSqliteData } from './pre-sqlite-import/import-pre-sqlite-data.js';
import { PreSqliteImportError } from './pre-sqlite-import/pre-sqlite-import-error.js';
import { readVersion } from './version.js';
import { parseDuration } from './config/parse-duration.js';
import { checkMetadataConfig, openSharedMusicBrainz } from './metadata/shared-musicbrainz.js';
import { registerDomain, domainRoutes, startAfterListen, startDomain, stopDomain } from './register-domain.js';
import { checkSourceEntries } from './sources/check-source-entries.js';
import { approvalRoutes } from './approvals/approvals.routes.js';
import { decisionLinkPages } from './approvals/decide.routes.js';
import { DecideRateLimit } from './approvals/decide-rate-limit.js';
import { DecisionLinkService } from './approvals/decision-links.js';
import { LinkDecisions } from './approvals/link-decisions.js';
import { checkApprovalsConfig, publicUrlOf } from './approvals/public-url.js';
import { checkCredentials, revokeLinksIfCredentialsChanged } from './approvals/credentials-fingerprint.js';
import { checkNotificationEntries } from './notifications/check-notification-entries.js';
import { NotificationDispatcher } from './notifications/notification-dispatcher.js';
import { notificationChannels } from './notifications/notification-channels.js';
import { RequestRules } from './requests/request-rules.js';
import { LibraryTable } from './library/library-table.js';
import { apiKeyRoutes } from './users/api-keys.routes.js';
import { configAdminOf } from './users/config-admin.js';
import { StoredApiKeys } from './users/stored-api-keys.js';
import { UserDirectory } from './users/user-directory.js';
import { userRoutes } from './users/users.routes.js';

export interface CrateflowOptions {
  config: AppConfig;
  /** Folder of the config file (with none, the current directory); relative paths and plugin paths resolve against it. */
  configDir: string;
  /** Where the config came from, for error messages. */
  configSource?: string;
  log?: Logger;
  clock?: Clock;
  /** Check every API response against its schema (tests). */
  validateResponses?: boolean;
}

/** A built, not yet listening, Crateflow: the Koa app, its container, and its lifecycle. */
export interface Crateflow {
  app: Koa;
  container: DependencyContainer;
  log: Logger;
  /** Starts listening on `server.host`:`server.port` (port 0 = any free port). */
  /** Starts answering: on `reserved` (a server bound by reservePort()) or on a new one bound now. */
  listen(reserved?: ReservedServer): Promise<{ server: Server; port: number; host: string }>;
  /** Stops accepting, finishes in-flight requests, stops jobs and plugins, flushes the store. */
  close(): Promise<void>;
  /**
   * The integrity check of a database too large to check before start-up, run beside the service: settles with
   * the damage it found (stop the service then: it must not go on writing a damaged file), or undefined.
   */
  integrity: Promise<DamagedDatabaseError | undefined>;
}

/**
 * The composition root: builds one app with its own DI container (so a test process can run many), loads
 * plugins, opens the store and registers every service and route. Throws ConfigError listing every problem.
 */
export async function createCrateflow(options: CrateflowOptions): Promise<Crateflow> {
  const config = resolveConfigPaths(options.config, options.configDir);
  const version = readVersion();
  const log = options.log ?? createLogger(config.log.level);
  const clock = options.clock ?? systemClock();
  const shutdown = new AbortController();
  const makeId = () => newId(clock.now());
  const source = options.configSource ?? 'the configuration';
  // The UI's files are read while the plugins load and the store opens (file reads wait on the disk, not the CPU).
  const uiAssets = loadUiAssets();
  uiAssets.catch(() => undefined); // awaited below; a start that fails before then must not leave it unhandled

  // Every check before anything is created on disk, so a bad config leaves no trace and reports every problem.
  const checked = await checkPlugins(planPluginMounts(config), slotChoice(config), options.configDir);
  // The one metadata address policy: MusicBrainz, covers, and the HTTP clients of sources and previews judge every hop by it.
  const metadataPolicy = OutboundAddressPolicy.from(config.metadata_policy, 'metadata_policy');
  const problems = [
    ...AllowedHosts.check(config.server.allowed_hosts),
    ...DefaultAuthenticator.check(config.ui.auth),
    ...OutboundAddressPolicy.check(config.webhooks_policy),
    ...OutboundAddressPolicy.check(config.metadata_policy, 'metadata_policy'),
    ...checkNamedUpstreams([
      { path: 'metadata.musicbrainz.url', url: config.metadata.musicbrainz.url },
      { path: 'metadata.coverartarchive.url', url: config.metadata.coverartarchive.url },
    ], metadataPolicy),
    ...checkMetadataConfig(config.metadata),
    ...checkSourceEntries(config.sources),
    ...checkApprovalsConfig(config.server.public_url, config.approvals.link_ttl),
    ...checkNotificationEntries(config.notifications, config.server.public_url),
    ...checked.problems,
  ];
  if (problems.length > 0) throw new ConfigError(source, problems);
  const store = await openStore(config.storage.dir, log).catch((err: unknown) => {
    if (err instanceof DataDirInUseError || err instanceof DamagedDatabaseError || err instanceof NewerDatabaseError || err instanceof PreSqliteImportError) throw err;
    // Not the folder's fault: the installed driver does not fit this Node.
    const driver = sqliteDriverError(err);
    if (driver) throw driver;
    // Unwritable, a file in the way, a path the OS refuses: the user fixes storage.dir, so name it.
    throw new ConfigError(source, [{ path: 'storage.dir', message: `cannot use "${config.storage.dir}": ${err instanceof Error ? err.message : String(err)}` }]);
  });
  const paths = pathsInUse(store.dir, checked.candidates);
  log.info({ config: source, paths }, `folders in use: ${Object.entries(paths).map(([key, path]) => `${key} ${path}`).join(', ')}`);
  const refuseTargetAddress = OutboundAddressPolicy.from(config.webhooks_policy).refuse;
  const musicbrainz = await openSharedMusicBrainz(config.metadata, { dataDir: store.dir, version, clock, log: log.child({ component: 'musicbrainz' }), addressPolicy: metadataPolicy }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  // Links issued from here on are this start's: a change of credentials revokes only those before it.
  const startedAt = clock.now();
  const credentials = checkCredentials(store, config.ui.auth);
  credentials.catch(() => undefined); // awaited below; a start that fails before then must not leave it unhandled
  const publicUrl = publicUrlOf(config.server.public_url);
  const decisionLinks = new DecisionLinkService(store, clock, publicUrl, parseDuration(config.approvals.link_ttl));
  // One gate for every scrypt hash, checks and new passwords alike: they share libuv's thread pool with the store.
  const passwordGate = new CredentialCheckGate();
  const users = new UserDirectory(store, clock, configAdminOf(config.ui.auth), config.ui.auth.api_keys.filter((key) => key.user === undefined).map((key) => key.name), passwordGate);
  const storedKeys = new StoredApiKeys(store, clock, makeId);
  const plugins = await createPlugins(checked, {
    store, log, clock, signal: shutdown.signal, version, newId: makeId, refuseTargetAddress, metadataPolicy, musicbrainz, ...(decisionLinks.issuer ? { decisionLinks: decisionLinks.issuer } : {}), accounts: users,
  }).catch(async (err: unknown) => {
    await musicbrainz.close();
    const configPathOf = (name: string) => checked.candidates.find((c) => instanceNameOf(c) === name)?.mount.configPath;
    const problems = pluginCreateProblems(err, configPathOf);
    throw problems ? new ConfigError(source, problems) : err;
  });
  // Which sink serves /api/v1/webhooks is decided by capability, once; two that both claim it stop the start-up.
  const webhookAdmin = await chooseWebhookAdmin(plugins, config.events.sink_timeout_ms).catch(async (err: unknown) => {
    await releasePlugins(plugins, store, log);
    await musicbrainz.close();
    throw err;
  });
  if (!webhookAdmin.ok) {
    await releasePlugins(plugins, store, log);
    await musicbrainz.close();
    throw new ConfigError(source, webhookAdmin.problems);
  }

  const container = rootContainer.createChildContainer();
  const eventLog = new EventLogTable(store);
  const events = new EventBus(eventLog, plugins, clock, log.child({ component: 'events' }), makeId, config.events.sink_timeout_ms);
  const authenticator = new DefaultAuthenticator(config.ui.auth, plugins.auth, { clock, log, users, storedKeys, gate: passwordGate });
  const requestRules = new RequestRules(config.requests, users);
  container.register(Tokens.Config, { useValue: config });
  container.register(Tokens.ConfigDir, { useValue: options.configDir });
  container.register(Tokens.Log, { useValue: log });
  container.register(Tokens.Clock, { useValue: clock });
  container.register(Tokens.Store, { useValue: store });
  container.register(EventLogTable, { useValue: eventLog });
  container.register(Tokens.Plugins, { useValue: plugins });
  container.register(Tokens.Authenticator, { useValue: authenticator });
  container.register(Tokens.Version, { useValue: version });
  container.register(Tokens.ShutdownSignal, { useValue: shutdown.signal });
  container.register(Tokens.NewId, { useValue: makeId });
  container.register(Tokens.MetadataAddressPolicy, { useValue: metadataPolicy });
  container.register(Tokens.MusicBrainz, { useValue: musicbrainz });
  container.register(EventBus, { useValue: events });
  container.register(DecisionLinkService, { useValue: decisionLinks });
  container.register(RequestRules, { useValue: requestRules });
  await registerDomain(container, store);
  const linkDecisions = new LinkDecisions(decisionLinks, container.resolve(QueueService), clock);
  decisionLinks.attachDecide((token, action, by) => linkDecisions.decideFor(token, action, by));
  const notifications = new NotificationDispatcher(
    {
      store, queue: container.resolve(QueueService), links: decisionLinks, plugins, clock, log: log.child({ component: 'notifications' }), publicUrl,
      eachSources: config.sources.filter((source) => source.notify === 'each').map((source) => source.name), sendTimeoutMs: config.events.sink_timeout_ms,
      requesterTarget: (user) => users.profileOf(user)?.notify,
      inLibrary: (data) => container.resolve(LibraryTable).owns(data),
    },
    notificationChannels(config.notifications, plugins),
  );
  events.addRecorder(notifications);
  events.subscribe(() => notifications.wake());

  const routes: RouteSpec[] = [];
  const openApi = () => buildOpenApi(routes, { version, prefix: API_PREFIX, outside: [healthOperation] });
  routes.push(...authInfoRoutes({ authenticator, logoutUrl: config.ui.auth.logout_url, notice: config.ui.notice }), ...authRoutes({ authenticator }), ...authSessionRoutes({ authenticator }), ...metaRoutes({ plugins, openApi }), ...domainRoutes(container));
  routes.push(...approvalRoutes({ links: decisionLinks }));
  routes.push(...userRoutes({ users, keys: storedKeys, rules: requestRules, channels: config.notifications }), ...apiKeyRoutes({ keys: storedKeys, users, configured: config.ui.auth.api_keys }));
  routes.push(...webhookRoutes({ webhooks: new GuardedWebhookAdmin(webhookAdmin.provider, plugins, config.events.sink_timeout_ms, () => clock.now()) }));
  routes.push(
    ...statsRoutes({
      queue: container.resolve(QueueService),
      wishlist: container.resolve(WishlistService),
      downloads: container.resolve(DownloadService),
      library: container.resolve(LibraryService),
      events: eventLog,
      plugins,
    }),
    ...eventStreamRoutes({
      events,
      signal: shutdown.signal,
      maxStreams: config.server.max_event_streams,
      maxUnreadBytes: config.server.event_stream_max_unread_bytes,
      stillAllowed: (identity) => {
        if (!identity) return true;
        const grant = authenticator.grantOf(identity);
        return !grant.disabled && grant.scopes.has('read');
      },
    }),
  );
  const app = createApp({
    log,
    routes,
    authenticator,
    // The public address's name is one the service answers to: a proxy passes it on in Host.
    allowedHosts: new AllowedHosts(config.server.host, [...config.server.allowed_hosts, ...(publicUrl ? nameOf(publicUrl) : [])]),
    // Counted per client: the address a trusted proxy forwarded for, else the peer's.
    decisionLinks: decisionLinkPages(linkDecisions, new DecideRateLimit(clock), (ctx) => authenticator.describe(ctx).client_address ?? ''),
    validateResponses: options.validateResponses ?? false,
    health: healthHandler({ store, plugins, version, startedAt: clock.now(), now: () => clock.now() }),
    ui: serveUi(await uiAssets, { mediaOrigins: container.resolve(PreviewService).origins }),
  });

  await revokeLinksIfCredentialsChanged(store, decisionLinks, credentials, startedAt, clock, log);
  await plugins.start();
  events.resume();
  startDomain(container);
  notifications.start();

  let server: Server | undefined;
  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    closing ??= (async () => {
      shutdown.abort();
      if (server) await stopServer(server, config.server.shutdown_timeout_ms);
      await stopDomain(container);
      await notifications.stop();
      events.stop();
      await plugins.stop((name, err) => log.error({ err, plugin: name }, 'plugin failed to stop cleanly'));
      await store.close();
      await musicbrainz.close();
    })();
    return closing;
  }
  return {
    app,
    container,
    log,
    close,
    integrity: store.integrity,
    listen: (reserved?: ReservedServer) =>
      new Promise((resolve, reject) => {
        const serve = (listening: Server) => {
          server = listening;
          const address = listening.address();
          const port = address && typeof address === 'object' ? address.port : config.server.port;
          resolve({ server: listening, port, host: config.server.host });
          startAfterListen(container);
        };
        if (reserved) {
          // Bound by reservePort() before the store was opened; from now on the app answers.
          reserved.serve(app.callback());
          answerMalformedRequests(reserved.server);
          serve(reserved.server);
          return;
        }
        const listening = createHttpServer(app.callback(), config.server, log);
        listening.listen(config.server.port, config.server.host);
        answerMalformedRequests(listening);
        listening.once('error', reject);
        listening.once('listening', () => serve(listening));
      }),
  };
}

/** Undoes createPlugins() and the store's opening for a start-up that stops before anything was started. */
async function releasePlugins(plugins: LoadedPlugins, store: Store, log: Logger): Promise<void> {
  await plugins.stop((name, err) => log.error({ err, plugin: name }, 'plugin failed to stop cleanly'));
  await store.close();
}

/**
 * The database, with the data of an earlier version imported into it once (its old files then move to
 * storage.dir/pre-sqlite/), before anything else reads or writes it.
 */
async function openStore(dir: string, log: Logger): Promise<Store> {
  const store = await Store.open(dir, { exclusive: true, onError: (err) => log.error({ err }, 'a store action after a commit failed') });
  try {
    await importPreSqliteData(store.dir, store, log.child({ component: 'import' }));
    return store;
  } catch (err: unknown) {
    await store.close();
    throw err;
  }
}

/** Stops accepting connections, lets in-flight requests finish (up to `timeoutMs`), then drops what is left. */
function stopServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The host name of an origin, when it is a name (IP literals are always accepted). */
function nameOf(origin: string): string[] {
  const host = new URL(origin).hostname;
  return host.startsWith('[') || /^[0-9.]+$/.test(host) ? [] : [host];
}
