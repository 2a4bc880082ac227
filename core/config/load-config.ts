import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { formatSchemaErrors, joinPath, type PathProblem } from '../schema/format-schema-errors.js';
import type { AppConfig } from './app-config.schema.js';
import { appConfigValidator } from './app-config-validator.js';
import { findDuplicateKeys } from './find-duplicate-keys.js';
import { substituteEnv } from './substitute-env.js';


/** The outcome of reading the configuration: the config with defaults applied, and every problem found. */
export interface LoadedConfig {
  config: AppConfig;
  /** Where it came from: a file path, or "built-in defaults". */
  source: string;
  problems: PathProblem[];
}

/**
 * Where the config file is: `--config PATH` (`flag`, as parseArguments read it), else `CRATEFLOW_CONFIG`, else
 * `./config.yaml` if it exists. Its folder is the base of the relative paths in it (resolveConfigPaths).
 */
export function configPathFrom(flag: string | undefined, env: NodeJS.ProcessEnv): { path: string; explicit: boolean } {
  if (flag) return { path: resolve(flag), explicit: true };
  if (env.CRATEFLOW_CONFIG) return { path: resolve(env.CRATEFLOW_CONFIG), explicit: true };
  return { path: resolve('config.yaml'), explicit: false };
}

/**
 * Reads, substitutes and validates the configuration. This is the only module that reads `process.env`
 * (it is passed in), so everything else gets its settings from the config object.
 */
export async function loadConfig(location: { path: string; explicit: boolean }, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const problems: PathProblem[] = [];
  let raw: unknown = {};
  let source = location.path;
  const text = await readFile(location.path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' && !location.explicit) return undefined; // no file at all: built-in defaults
    problems.push({ path: '(file)', message: `cannot read ${location.path}: ${err.code ?? err.message}` });
    return undefined;
  });
  if (text === undefined) {
    if (problems.length === 0) source = 'built-in defaults';
  } else {
    const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    if (doc.errors.some((error) => error.code === 'DUPLICATE_KEY')) problems.push(...findDuplicateKeys(text));
    for (const error of doc.errors) {
      if (error.code === 'DUPLICATE_KEY') continue; // reported above by key path
      const where = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '(file)';
      problems.push({ path: where, message: error.message.split('\n')[0] ?? 'invalid YAML' });
    }
    raw = doc.errors.length === 0 ? toJs(doc, problems) : {};
    // Schema problems are still worth reporting when the only YAML problem is a duplicate key.
    if (doc.errors.length > 0 && doc.errors.every((error) => error.code === 'DUPLICATE_KEY')) raw = toJs(parseDocument(text, { uniqueKeys: false }), problems);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({ path: '(root)', message: 'must be a mapping of keys (server:, storage:, …)' });
    raw = {};
  }
  const substituted = substituteEnv(raw, env, problems);
  findNulCharacters(substituted, '', problems);
  const candidate = applyEnvOverrides(substituted, env, problems);
  const validateAppConfig = appConfigValidator();
  if (!validateAppConfig(candidate)) problems.push(...formatSchemaErrors(validateAppConfig.errors));
  // After validation (successful or not) ajv has filled in defaults, so the object has the config's shape
  // wherever the input did; plugin blocks are validated separately by the plugin host.
  return { config: candidate as AppConfig, source, problems };
}

/**
 * A NUL character is never meant (a pasted binary, a bad editor): no path, URL, header or name can hold one,
 * and Node refuses it deep inside whatever uses the value. Reported here, at its key.
 */
function findNulCharacters(value: unknown, path: string, problems: PathProblem[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) problems.push({ path: path || '(root)', message: 'contains a NUL character (\\u0000)' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => findNulCharacters(item, `${path}[${i}]`, problems));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) findNulCharacters(item, joinPath(path, key), problems);
  }
}

function toJs(doc: ReturnType<typeof parseDocument>, problems: PathProblem[]): unknown {
  try {
    return doc.toJS() ?? {};
  } catch (err: unknown) {
    // The yaml library refuses aliases that expand without bound (a "billion laughs" document) at this step,
    // not while parsing; it is a problem with the file like any syntax error.
    problems.push({ path: '(file)', message: `cannot be read: ${err instanceof Error ? err.message : String(err)}` });
    return {};
  }
}

function applyEnvOverrides(config: unknown, env: NodeJS.ProcessEnv, problems: PathProblem[]): unknown {
  // An empty PORT (PORT= in an env file) means unset.
  if (!env.PORT || config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const port = Number(env.PORT);
  if (!/^[0-9]+$/.test(env.PORT) || port > 65535) {
    problems.push({ path: 'PORT (environment)', message: `must be a port number 0..65535, got "${env.PORT}"` });
    return config;
  }
  const record: Record<string, unknown> = { ...config };
  const server = record.server;
  // A `server:` that is not a mapping stays as written, so validation reports it instead of PORT hiding it.
  if (server !== undefined && (server === null || typeof server !== 'object' || Array.isArray(server))) return record;
  record.server = { ...server, port };
  return record;
}
