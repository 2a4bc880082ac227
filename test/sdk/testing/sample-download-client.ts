import { CredentialsError, definePlugin, NotFoundError, PLUGIN_API_VERSION, Type, type DownloadUpdate } from '@crateflow/sdk';

/** A deliberate defect, so the kit's tests can show each check catching one. */
export type DownloadClientFlaw = 'none' | 'progress-out-of-range' | 'path-changes' | 'plain-401' | 'leaks-timer';

const Config = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'transfer service base URL' }),
    api_key: Type.String({ minLength: 1, description: 'sent as x-api-key' }),
    heartbeat_ms: Type.Integer({ minimum: 1000, default: 60_000, description: 'how often the client pings' }),
  },
  { additionalProperties: false },
);

/** A small but honest download client for the fake transfer service, with an optional flaw. */
export function sampleDownloadClient(flaw: DownloadClientFlaw = 'none') {
  return definePlugin({
    manifest: { name: 'sample-transfers', kind: 'download-client', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config, http, clock }) => {
      let cancelHeartbeat: (() => void) | undefined;
      let polls = 0;
      const call = async (path: string, method: 'GET' | 'POST'): Promise<Record<string, unknown>> => {
        const res = await http.request({ url: `${config.url}${path}`, method, headers: { 'x-api-key': config.api_key } });
        if (res.status === 401) {
          if (flaw === 'plain-401') throw new Error('401');
          throw new CredentialsError(`the transfer service rejected the API key (401 on ${path})`);
        }
        if (res.status === 404) throw new NotFoundError(`the transfer service has no ${path}`);
        const body = res.json();
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`${path} answered ${res.text()}`);
        return Object.fromEntries(Object.entries(body));
      };
      return {
        async start() {
          const beat = () => {
            cancelHeartbeat = clock.schedule(config.heartbeat_ms, beat);
          };
          beat();
        },
        async stop() {
          if (flaw !== 'leaks-timer') cancelHeartbeat?.();
        },
        async request() {
          const { id } = await call('/transfers', 'POST');
          return { ref: String(id) };
        },
        async status(ref: string): Promise<DownloadUpdate> {
          const { percent, path } = await call(`/transfers/${encodeURIComponent(ref)}`, 'GET');
          const done = typeof percent === 'number' ? percent : 0;
          if (done >= 100 && typeof path === 'string') {
            polls++;
            return { state: 'completed', progress: 1, download_path: flaw === 'path-changes' ? `${path}-${polls}` : path };
          }
          return { state: 'downloading', progress: flaw === 'progress-out-of-range' ? done : done / 100 };
        },
      };
    },
  });
}
