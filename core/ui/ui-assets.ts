import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

/** One file the UI serves, read once at startup and compressed the first time a client asks for it. */
export interface UiAsset {
  body: Buffer;
  /** Whether the file is worth compressing (a text file above the size floor). */
  compressible: boolean;
  /** The brotli and gzip variants, made on first use and kept (compressing at startup cost ~100 ms per start). */
  encoded(encoding: 'br' | 'gzip'): Buffer;
  type: string;
  /** Weak validator (the same for every encoding) over the content: hash-free URLs revalidate with a cheap 304. */
  etag: string;
}

export interface UiAssets {
  /** The SPA shell, answered for every page path. */
  page: UiAsset;
  /** URL path (`/assets/app.css`, `/vendor/preact.mjs`) → file. Nothing outside this table is ever served. */
  files: ReadonlyMap<string, UiAsset>;
  /** CSP source for the inline import map of the shell (`'sha256-…'`): the only inline script there is. */
  importMapHash: string;
}

export const UI_PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

/**
 * Browser-ready ES modules from node_modules, exposed under `/vendor/` and named in the shell's import map.
 * Resolved the way Node resolves an `import`, so an upgrade of preact or htm needs no change here.
 */
const VENDOR_MODULES: Readonly<Record<string, string>> = {
  '/vendor/preact.mjs': 'preact',
  '/vendor/preact-hooks.mjs': 'preact/hooks',
  '/vendor/htm.mjs': 'htm',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};
const COMPRESS_MIN_BYTES = 512;
const SHELL = 'index.html';

/**
 * Reads every file of `publicDir` (plus the vendor modules) into memory. The table of URL paths is built from
 * a directory listing, never from a request path, which is what rules out path traversal: a request can only
 * name a key of this table.
 */
export async function loadUiAssets(publicDir: string = UI_PUBLIC_DIR): Promise<UiAssets> {
  const files = new Map<string, UiAsset>();
  let page: UiAsset | undefined;
  for (const path of await listFiles(publicDir)) {
    const rel = relative(publicDir, path).split(sep).join('/');
    const type = TYPES[extname(path)];
    if (!type) continue; // editor backups, notes: not part of the UI
    const asset = makeAsset(await readFile(path), type);
    if (rel === SHELL) page = asset;
    else files.set(`/${rel}`, asset);
  }
  if (!page) throw new Error(`the web UI has no ${SHELL} in ${publicDir}`);
  for (const [urlPath, specifier] of Object.entries(VENDOR_MODULES)) {
    const file = fileURLToPath(import.meta.resolve(specifier));
    files.set(urlPath, makeAsset(await readFile(file), TYPES['.mjs'] ?? 'text/javascript'));
  }
  return { page, files, importMapHash: importMapHashOf(page.body.toString('utf8')) };
}

function makeAsset(body: Buffer, type: string): UiAsset {
  const variants: Partial<Record<'br' | 'gzip', Buffer>> = {};
  return {
    body,
    type,
    etag: `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    compressible: !type.startsWith('image/png') && body.length >= COMPRESS_MIN_BYTES,
    encoded(encoding) {
      variants[encoding] ??=
        encoding === 'br'
          ? brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } })
          : gzipSync(body, { level: 9 });
      return variants[encoding];
    },
  };
}

function importMapHashOf(html: string): string {
  const match = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  if (!match || match[1] === undefined) throw new Error(`the web UI's ${SHELL} has no <script type="importmap">`);
  return `'sha256-${createHash('sha256').update(match[1], 'utf8').digest('base64')}'`;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.name.startsWith('.')) return [];
      return entry.isDirectory() ? listFiles(path) : entry.isFile() ? [path] : [];
    }),
  );
  return nested.flat();
}
