import type { Clock, Logger, MusicBrainz } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import type { RequestAuthenticator } from '../auth/request-authenticator.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import type { Store } from '../storage/store.js';
import type { OutboundAddressPolicy } from '../net/outbound-address-policy.js';

/** A typed injection token: the symbol carries the type it resolves to. */
export type Token<T> = symbol & { readonly __resolves?: T };
const token = <T>(name: string): Token<T> => Symbol(name);

/** Every injection token, in one place. */
export const Tokens = {
  Config: token<AppConfig>('Config'),
  /** Where the config came from; relative plugin paths resolve against its folder. */
  ConfigDir: token<string>('ConfigDir'),
  Log: token<Logger>('Log'),
  Clock: token<Clock>('Clock'),
  /** The database (core/storage/store.ts): tables are built on it; changes go through UnitOfWork. */
  Store: token<Store>('Store'),
  Plugins: token<LoadedPlugins>('Plugins'),
  Authenticator: token<RequestAuthenticator>('Authenticator'),
  Version: token<string>('Version'),
  /** Aborted when the app shuts down. */
  ShutdownSignal: token<AbortSignal>('ShutdownSignal'),
  NewId: token<() => string>('NewId'),
  /** `metadata_policy`: where requests for metadata (covers, MusicBrainz, sources, previews) may connect. */
  MetadataAddressPolicy: token<OutboundAddressPolicy>('MetadataAddressPolicy'),
  /** The one MusicBrainz client (pacing queue, User-Agent, disk cache) of the app. */
  MusicBrainz: token<MusicBrainz>('MusicBrainz'),
} as const;
