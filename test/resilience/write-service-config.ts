import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

type Block = Record<string, unknown>;

export interface ServiceConfigBlocks {
  server?: Block;
  storage?: Block;
  log?: Block;
  download_client?: Block;
  library?: Block;
  ui?: Block;
  webhooks?: Block[];
  /** Top-level blocks written as given, after (and replacing) the ones above, e.g. a whole `library` block. */
  replace?: Block;
}

/**
 * Writes `<dir>/config.yaml` (JSON is YAML) for a service child on 127.0.0.1:`port` with everything it keeps
 * inside `dir`: the store in `data/`, a blackhole client on `requests/` and `complete/`, a folder library in
 * `music/`, warnings and errors logged. A test names only what it changes: each block given is merged over
 * the base one, and `webhooks` is added as given. Returns the file's path.
 */
export async function writeServiceConfig(dir: string, port: number, blocks: ServiceConfigBlocks = {}): Promise<string> {
  const path = join(dir, 'config.yaml');
  const config = {
    server: { host: '127.0.0.1', port, ...blocks.server },
    storage: { dir: join(dir, 'data'), ...blocks.storage },
    log: { level: 'warn', ...blocks.log },
    download_client: { type: 'blackhole', requests_dir: join(dir, 'requests'), complete_dir: join(dir, 'complete'), ...blocks.download_client },
    library: { type: 'filesystem', path: join(dir, 'music'), ...blocks.library },
    ...(blocks.ui ? { ui: blocks.ui } : {}),
    ...(blocks.webhooks ? { webhooks: blocks.webhooks } : {}),
    ...blocks.replace,
  };
  await writeFile(path, JSON.stringify(config));
  return path;
}
