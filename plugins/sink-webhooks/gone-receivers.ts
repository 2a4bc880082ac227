import type { PluginStorage } from '@crateflow/sdk';

const GONE = 'gone/';

/** Where a webhook stood when its receiver answered `410 Gone`. */
type GoneMark = { url: string; at: string };

/**
 * Webhooks whose receiver answered `410 Gone`: the receiver says the subscription no longer exists, so
 * retrying (or sending the next event) only adds noise at an endpoint that has told us to stop. The mark is
 * kept in the plugin's storage (it survives a restart) together with the url it was given for: an operator
 * who points the webhook at a new url, or redelivers by hand, clears it.
 */
export class GoneReceivers {
  constructor(private readonly storage: PluginStorage) {}

  /** When the webhook's current url answered 410, as an ISO time; undefined when it is not flagged. */
  since(name: string, url: string): string | undefined {
    const mark = this.storage.get<GoneMark>(GONE + name);
    return mark && mark.url === url ? mark.at : undefined;
  }

  mark(name: string, url: string, at: string): Promise<void> {
    return this.storage.set(GONE + name, { url, at });
  }

  async clear(name: string): Promise<void> {
    if (this.storage.get(GONE + name) !== undefined) await this.storage.delete(GONE + name);
  }
}
