import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_BUNDLE = join(ROOT, 'dist', 'crateflow.mjs');

/** How the sources are bundled for plain node, for the service and for the build's own generator alike. */
const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  conditions: ['crateflow-source'],
  tsconfig: join(ROOT, 'tsconfig.json'),
  logLevel: 'error',
} satisfies BuildOptions;

/** A module the build imports itself. Bundled CommonJS dependencies (ajv…) call require() for node built-ins. */
const ESM_BUNDLE = {
  ...NODE_BUNDLE,
  format: 'esm',
  banner: { js: "import { createRequire as __crateflowRequire } from 'node:module'; const require = __crateflowRequire(import.meta.url);" },
} satisfies BuildOptions;

/**
 * The build step behind `npm start`: bundles core/main.ts, the sdk and every workspace plugin into one ESM file, so a
 * production start does not compile TypeScript. Plugins are still loaded by package name: the plugin host's
 * `import(packageName)` would reach a workspace package whose "exports" is `./index.ts`, which plain node cannot
 * run, so the bundle puts a map of built-in package names in front of the host's loader (third-party names and
 * paths still go to `import()`). The web UI's static files are copied next to the bundle.
 *
 * The code is a CommonJS file (`crateflow.code.cjs` beside `crateflow.mjs`), which V8 can compile from a code cache;
 * `outfile` is the small ES module that runs it through that cache (core/build/code-cache-entry.mjs). The sources'
 * `import.meta.url` and `import.meta.resolve` become parameters that the entry passes in.
 */
export async function bundleCrateflow(outfile = DEFAULT_BUNDLE): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const codeFile = `${basename(outfile, '.mjs')}.code.cjs`;
  const result = await build({
    ...NODE_BUNDLE,
    format: 'cjs',
    define: { 'import.meta.url': '__crateflowUrl', 'import.meta.resolve': '__crateflowResolve' },
    entryPoints: [join(ROOT, 'core', 'main.ts')],
    outfile: join(dirname(outfile), codeFile),
    // Error classes name themselves from `new.target.name`; keep names that bundling would otherwise suffix.
    keepNames: true,
    // Comments and indentation only cost parse time and heap; identifiers stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    write: false,
    metafile: true,
    // undici is loaded on the first outbound request (sdk http-client): left out, it costs no parse time at
    // startup. The SQLite drivers (core/sqlite/sqlite-driver.ts picks one by Node release) must stay packages: each
    // finds its addon (built by npm ci, or shipped ready-made) relative to its own files, in node_modules.
    external: ['undici', 'better-sqlite3', 'better-sqlite3-napi'],
    plugins: [builtInPlugins(await workspacePluginNames()), inlineVersion(), oneMimeDatabase(), utf8OnlyDecoder(), precompiledConfigValidator(await configValidatorModule()), importsThroughEntry()],
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error('esbuild produced no output');
  // With the rewrite below the bundle calls no import() of its own. esbuild lists those of a literal specifier; one
  // of a computed specifier it cannot list, so the text is searched too (`import()` with nothing inside is prose).
  const literal = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((entry) => entry.kind === 'dynamic-import').map((entry) => entry.path));
  const computed = /(?<![\w$.])import\((?!\))/.exec(code);
  if (literal.length > 0 || computed) {
    const where = computed ? `near "${code.slice(computed.index, computed.index + 80)}"` : literal.join(', ');
    throw new Error(`the bundle calls import() itself (${where}): route it through __crateflowImport (see importsThroughEntry)`);
  }
  const ascii = escapeNonAscii(code);
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(join(dirname(outfile), codeFile), ascii);
  await writeFile(outfile, await codeCacheEntry(codeFile, ascii));
  // core/ui/ui-assets.ts reads `./public/` next to itself (import.meta.url), which is now the bundle's folder.
  const publicDir = join(dirname(outfile), 'public');
  await rm(publicDir, { recursive: true, force: true });
  await cp(join(ROOT, 'core', 'ui', 'public'), publicDir, { recursive: true });
  return { ms: Math.round(performance.now() - started), bytes: Buffer.byteLength(ascii) };
}

/** core/build/code-cache-entry.mjs, naming the code file beside it and the hash of that file's content. */
async function codeCacheEntry(codeFile: string, code: string): Promise<string> {
  const template = await readFile(join(ROOT, 'core', 'build', 'code-cache-entry.mjs'), 'utf8');
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  return template.replace("'__CODE_FILE__'", JSON.stringify(codeFile)).replace("'__CODE_HASH__'", JSON.stringify(hash));
}

/**
 * esbuild leaves non-ASCII characters in regular expression literals (`/['’]/`), and one such character makes
 * V8 hold the whole multi-megabyte source as a two-byte string. `\uXXXX` means the same in regex literals and
 * strings, and the minified output has no comments left.
 */
function escapeNonAscii(code: string): string {
  return code.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The package names under plugins/ (npm workspaces): the plugins the bundle carries. */
async function workspacePluginNames(): Promise<string[]> {
  const folders = await readdir(join(ROOT, 'plugins'), { withFileTypes: true });
  const names: string[] = [];
  for (const folder of folders.filter((f) => f.isDirectory())) {
    const manifest: unknown = JSON.parse(await readFile(join(ROOT, 'plugins', folder.name, 'package.json'), 'utf8'));
    if (manifest && typeof manifest === 'object' && 'name' in manifest && typeof manifest.name === 'string') names.push(manifest.name);
  }
  return names;
}

/**
 * Replaces the plugin host's `./load-plugin.js` with a module that answers built-in package names from static
 * imports (which esbuild bundles, lazily initialised) and hands everything else to the real loader.
 */
function builtInPlugins(packages: readonly string[]): Plugin {
  const loader = join(ROOT, 'core', 'plugins', 'load-plugin.ts');
  return {
    name: 'crateflow-built-in-plugins',
    setup(b) {
      b.onResolve({ filter: /^\.\/load-plugin\.js$/ }, (args) =>
        args.importer.endsWith(join('core', 'plugins', 'plugin-host.ts')) ? { path: 'built-in-plugins', namespace: 'crateflow' } : undefined,
      );
      b.onLoad({ filter: /^built-in-plugins$/, namespace: 'crateflow' }, () => ({
        resolveDir: ROOT,
        loader: 'ts',
        contents: [
          `import { loadPluginModule as loadFromDisk } from ${JSON.stringify(loader)};`,
          'const builtIn: Record<string, () => Promise<{ default: unknown }>> = {',
          ...packages.map((name) => `  ${JSON.stringify(name)}: () => import(${JSON.stringify(name)}),`),
          '};',
          'export async function loadPluginModule(use: string, baseDir: string): Promise<unknown> {',
          '  const load = Object.hasOwn(builtIn, use) ? builtIn[use] : undefined;',
          '  return load ? (await load()).default : loadFromDisk(use, baseDir);',
          '}',
        ].join('\n'),
      }));
    },
  };
}

/**
 * koa, its body parser and `accepts` each bring their own copy of mime-db (a 160 KB JSON table of 2,500 types,
 * two versions): bundled as they are, every start parses the table three times and keeps three copies in the
 * heap. Every importer gets one table, cut to the types a web service meets: those of the file extensions in
 * WEB_EXTENSIONS, every JSON type, forms and multipart (about 220). The table only answers extension shortcuts
 * (`ctx.type = 'json'`) and charsets; a full type such as `application/x-foo` still passes through unchanged. The
 * whole table cost ~0.6 MB of heap and ~11 ms of every start.
 */
const WEB_EXTENSIONS = new Set(
  'json html htm txt text js mjs css svg png jpg jpeg webp gif ico avif bin map xml mp3 ogg m4a flac wav woff woff2 pdf zip csv md yaml yml webmanifest wasm'.split(' '),
);

function oneMimeDatabase(): Plugin {
  const fromCore = createRequire(join(ROOT, 'core', 'package.json'));
  const fromKoa = createRequire(fromCore.resolve('koa/package.json'));
  const mimeDb = createRequire(fromKoa.resolve('mime-types/package.json')).resolve('mime-db');
  return {
    name: 'crateflow-one-mime-database',
    setup(b) {
      b.onResolve({ filter: /^mime-db$/ }, () => ({ path: mimeDb, namespace: 'crateflow-web-mime-db' }));
      b.onLoad({ filter: /.*/, namespace: 'crateflow-web-mime-db' }, async () => {
        const all = JSON.parse(await readFile(join(dirname(mimeDb), 'db.json'), 'utf8')) as Record<string, { extensions?: string[] }>;
        const web = Object.entries(all).filter(
          ([type, entry]) => (entry.extensions ?? []).some((ext) => WEB_EXTENSIONS.has(ext)) || type.includes('json') || type === 'application/x-www-form-urlencoded' || type.startsWith('multipart/'),
        );
        return { contents: `module.exports = ${JSON.stringify(Object.fromEntries(web))};`, loader: 'js' };
      });
    },
  };
}

/**
 * core/config/app-config-validator.ts compiles the config's validator with ajv, ~40 ms of every start; the bundle
 * carries it compiled instead (core/build/config-validator-module.ts makes the module's source).
 */
function precompiledConfigValidator(source: string): Plugin {
  const standIn = join(ROOT, 'core', 'config', 'app-config-validator.ts');
  return {
    name: 'crateflow-precompiled-config-validator',
    setup(b) {
      b.onLoad({ filter: /app-config-validator\.ts$/ }, (args) =>
        args.path === standIn ? { contents: source, loader: 'js', resolveDir: dirname(standIn) } : undefined,
      );
    },
  };
}

/**
 * The bundled code runs as a V8 script with a code cache (core/build/code-cache-entry.mjs), and a script's own
 * `import()` breaks there: Node 20 loses the callback that serves it when the script comes from a cache ("A dynamic
 * import callback was not specified"), and Node 22 and 24 serve it only behind an experimental-feature warning. The
 * two modules that import at run time (undici, loaded on the first outbound request; third-party plugins, loaded
 * from disk) call `__crateflowImport` instead, which the entry passes in: the entry's own `import()`, an ES module's,
 * resolving from the same folder. The bundle is checked for any other `import(` call.
 */
const RUNTIME_IMPORTERS = [join(ROOT, 'sdk', 'src', 'http-client.ts'), join(ROOT, 'core', 'plugins', 'load-plugin.ts')];

function importsThroughEntry(): Plugin {
  return {
    name: 'crateflow-imports-through-entry',
    setup(b) {
      b.onLoad({ filter: /[\\/](http-client|load-plugin)\.ts$/ }, async (args) => {
        if (!RUNTIME_IMPORTERS.includes(args.path)) return undefined;
        const source = await readFile(args.path, 'utf8');
        // Value positions only: `typeof import('undici')` in a type stays as it is.
        let calls = 0;
        const contents = source.replace(/(\?\?=|await)\s+import\(/g, (_match, before: string) => {
          calls++;
          return `${before} __crateflowImport(`;
        });
        if (calls === 0) throw new Error(`${args.path} no longer calls import(): update RUNTIME_IMPORTERS in bundle-crateflow.ts`);
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * Runs core/build/config-validator-module.ts, which imports TypeScript sources: esbuild bundles it into a
 * temporary module next to this file (tsx is a development tool, and this runs at `npm start` too).
 */
async function configValidatorModule(): Promise<string> {
  const script = join(ROOT, 'core', 'build', `.config-validator-${process.pid}.mjs`);
  await build({ ...ESM_BUNDLE, entryPoints: [join(ROOT, 'core', 'build', 'config-validator-module.ts')], outfile: script });
  try {
    const generator = (await import(pathToFileURL(script).href)) as { configValidatorModule: () => string };
    return generator.configValidatorModule();
  } finally {
    await rm(script, { force: true });
  }
}

/**
 * raw-body (under the JSON body parser) asks iconv-lite for a decoder of the body's encoding, and iconv-lite is
 * half a megabyte of code tables for encodings this API never reads: the parser is configured for UTF-8 only.
 * In the bundle it is replaced by Node's own UTF-8 decoder (which, like iconv-lite, drops a BOM and replaces
 * malformed bytes with U+FFFD); any other encoding gets iconv-lite's error, which raw-body turns into a 415.
 */
function utf8OnlyDecoder(): Plugin {
  const contents = [
    'exports.getDecoder = function getDecoder(encoding) {',
    "  if (!/^utf-?8$/i.test(String(encoding))) throw new Error('Encoding not recognized: ' + JSON.stringify(String(encoding)));",
    "  const decoder = new TextDecoder('utf-8');",
    '  return { write: (chunk) => decoder.decode(chunk, { stream: true }), end: () => decoder.decode() || undefined };',
    '};',
    "exports.encodingExists = (encoding) => /^utf-?8$/i.test(String(encoding));",
  ].join('\n');
  return {
    name: 'crateflow-utf8-only-decoder',
    setup(b) {
      b.onResolve({ filter: /^iconv-lite$/ }, () => ({ path: 'iconv-lite', namespace: 'crateflow-utf8' }));
      b.onLoad({ filter: /.*/, namespace: 'crateflow-utf8' }, () => ({ loader: 'js', contents }));
    },
  };
}

/** core/version.ts reads `./package.json` next to itself, which a bundle in dist/ does not have. */
function inlineVersion(): Plugin {
  return {
    name: 'crateflow-inline-version',
    setup(b) {
      b.onLoad({ filter: /[\\/]core[\\/]version\.ts$/ }, async () => {
        const manifest: unknown = JSON.parse(await readFile(join(ROOT, 'core', 'package.json'), 'utf8'));
        const version = manifest && typeof manifest === 'object' && 'version' in manifest && typeof manifest.version === 'string' ? manifest.version : '0.0.0';
        return { loader: 'ts', contents: `export function readVersion(): string { return ${JSON.stringify(version)}; }` };
      });
    },
  };
}

// `node --import tsx core/build/bundle-crateflow.ts [outfile]` (npm run build) writes the bundle.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outfile = process.argv[2] ? resolve(process.argv[2]) : DEFAULT_BUNDLE;
  const { ms, bytes } = await bundleCrateflow(outfile);
  process.stdout.write(`built ${outfile} (${(bytes / 1024).toFixed(0)} KiB) in ${ms} ms\n`);
}
