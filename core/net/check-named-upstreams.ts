import type { ConfigProblem } from '@crateflow/sdk';
import type { OutboundAddressPolicy } from './outbound-address-policy.js';

/**
 * Config URLs whose host is an address no request may reach (link-local, cloud metadata, `block_cidrs`), named by
 * their key: better a startup error than a service whose every request is refused. Names are judged at connect time.
 */
export function checkNamedUpstreams(urls: readonly { path: string; url: string }[], policy: OutboundAddressPolicy): ConfigProblem[] {
  return urls.flatMap(({ path, url }) => {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch (err: unknown) {
      if (err instanceof TypeError) return []; // not a URL: the schema's own rules report it
      throw err;
    }
    const reason = policy.refuseNamedUpstream(host);
    return reason ? [{ path, message: `"${url}" is refused: ${reason}` }] : [];
  });
}
