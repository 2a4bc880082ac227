import { parseDocument, stringify } from 'yaml';
import { isRecord, type JsonRecord } from './json-fields.js';
import { between, pick } from './seeded-random.js';

/** Keys whose string value is a folder the service creates: mutations keep those relative and inside the run's folder. */
const PATH_KEYS = new Set(['dir', 'requests_dir', 'complete_dir', 'path', 'downloads_dir']);

const WRONG_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, 65536, -8080, 1e21, Number.POSITIVE_INFINITY, '', ' ', '8080', '10 s', '1e3s', '5x', '-1s', 'true', 'null',
  'x'.repeat(5000), [], {}, [1, [2]], { nested: { deeper: [] } }, '${CRATEFLOW_FUZZ_MISSING}', '${}', '${ }', '$${ESCAPED}', 'a${CRATEFLOW_FUZZ_SET}b',
  '\u202Egnp', 'Ω≈ç√', '😀', '\u0000', 'line\nbreak', '../../../../etc/passwd', 'http://127.0.0.1:9/latest', '::', '0.0.0.0', 'localhost', '999.1.1.1',
];
const UNKNOWN_KEYS = ['retires', 'prot', 'Port', 'enabled ', 'ümlaut', 'a.b', '__proto__', 'constructor', '', 'webhook', 'plugin'];
/** Plugin specifiers that cannot run code: missing packages and files, built-in packages in the wrong place. */
const SAFE_USES = ['crateflow-no-such-plugin', '@crateflow/sink-webhooks', '@crateflow/download-blackhole', '@crateflow/library-subsonic', 'node:fs', './no-such-file.js', '../../../../etc/passwd', '', '@scope/', 'file:///nonexistent/crateflow-plugin.js'];
const EVENTS = ['download_completed', 'queue_approved', 'queue_rejected', 'wishlist_removed', 'queue_added', 'nope', ''];
const JUNK = [':', '- ', '\t', '"', "'", '{', '[', '&a', '*a', '!', '%', '@', '`', '\u0000', '\uFEFF', '\r', '#', '|', '>', '? '];

/**
 * One of WRONG_VALUES, copied: the same object put in two places (or into itself by a later mutation) made the
 * config circular and threw in the harness, and mutations of a shared one leaked into later configs.
 */
function wrongValue(random: () => number): unknown {
  return structuredClone(pick(random, WRONG_VALUES));
}

/** Every path (list of keys) to a value inside `value`, containers included. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const found: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...paths(item, [...prefix, i])));
  else if (isRecord(value)) for (const [key, item] of Object.entries(value)) found.push(...paths(item, [...prefix, key]));
  return found;
}

function parentOf(root: JsonRecord, path: (string | number)[]): { parent: unknown; key: string | number } | undefined {
  if (path.length === 0) return undefined;
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) parent = Array.isArray(parent) ? parent[Number(key)] : isRecord(parent) ? parent[String(key)] : undefined;
  const key = path[path.length - 1];
  return key === undefined ? undefined : { parent, key };
}

function put(target: unknown, key: string | number, value: unknown): void {
  if (Array.isArray(target)) target[Number(key)] = value;
  else if (isRecord(target)) Object.defineProperty(target, String(key), { value, enumerable: true, configurable: true, writable: true });
}

function randomWebhook(random: () => number, index: number): JsonRecord {
  const hook: JsonRecord = {
    name: random() < 0.15 ? 'same-name' : `hook-${index}`,
    url: pick(random, ['http://127.0.0.1:9/hook', 'https://127.0.0.1:9/x', 'ftp://example.com', 'not a url', 'http://169.254.169.254/', 'http://[fe80::1]/', '']),
    events: random() < 0.2 ? [] : Array.from({ length: between(random, 1, 3) }, () => pick(random, EVENTS)),
  };
  if (random() < 0.5) hook.secret = pick(random, ['s3cret', '', '${CRATEFLOW_FUZZ_SET}', 42]);
  if (random() < 0.5) hook.timeout_ms = pick(random, [1, 100, 10_000, 30_000, 30_001, 0, -5, '1000']);
  if (random() < 0.5) hook.retry = pick(random, [0, 3, 5, 6, -1, 'two']);
  if (random() < 0.2) hook.retires = 3;
  if (random() < 0.1) delete hook.name;
  return hook;
}

function randomAuth(random: () => number): JsonRecord {
  const auth: JsonRecord = { enabled: random() < 0.8, type: pick(random, ['basic', 'proxy', 'ldap', '', 'Basic']) };
  if (random() < 0.5) auth.username = pick(random, ['admin', '', 'ä']);
  if (random() < 0.4) auth.password = pick(random, ['hunter2hunter2', '', 'x']);
  if (random() < 0.4) auth.password_hash = pick(random, ['$scrypt$garbage', 'plain', '$scrypt$ln=1,r=1,p=1$AAAA$BBBB']);
  if (random() < 0.5) auth.trusted_proxies = [pick(random, ['127.0.0.1/32', '300.0.0.1/8', 'abc', '::1/200', '10.0.0.0/8', '', '::ffff:0:0/96', '0.0.0.0/0'])];
  if (random() < 0.3) auth.trusted_headers = [pick(random, ['Remote-User', '', 'Bad Header', 'x'.repeat(300)])];
  if (random() < 0.4) auth.roles = { [pick(random, ['admins', '', 'a b'])]: pick(random, ['admin', 'viewer', 'god', 1]) };
  if (random() < 0.5) {
    auth.api_keys = [
      { name: pick(random, ['bot', '', 'dup']), key: pick(random, ['short', 'x'.repeat(16), '${CRATEFLOW_FUZZ_SET}']), role: pick(random, ['approver', 'root', 'viewer']) },
      ...(random() < 0.3 ? [{ name: 'dup', key_hash: 'not-a-hash' }] : []),
    ];
  }
  if (random() < 0.2) auth.session_idle_minutes = pick(random, [0, -1, 720, 'forever']);
  return auth;
}

function randomSlot(random: () => number, slot: 'download_client' | 'library'): JsonRecord {
  const type = slot === 'download_client' ? pick(random, ['blackhole', 'slskd', 'qbittorrent', '', 'crateflow-no-such-plugin']) : pick(random, ['filesystem', 'subsonic', 'jellyfin', 'plex', '']);
  const block: JsonRecord = { type };
  if (random() < 0.5) block.url = pick(random, ['http://127.0.0.1:9', 'not a url', '', 'ftp://x']);
  if (random() < 0.4) block.api_key = pick(random, ['', 'k', '${CRATEFLOW_FUZZ_MISSING}']);
  if (random() < 0.3) block.username = 'u';
  if (random() < 0.3) block.password = '';
  if (random() < 0.3) block[slot === 'download_client' ? 'poll_interval' : 'sync_interval'] = pick(random, ['10s', '0s', '1x', '', 10]);
  return block;
}

/** One structural mutation of the config object (in place). */
function mutateObject(config: JsonRecord, random: () => number): string {
  const op = random();
  const all = paths(config).filter((p) => p.length > 0);
  const target = pick(random, all);
  const where = parentOf(config, target);
  const label = target.join('.');
  if (op < 0.2 && where) {
    if (Array.isArray(where.parent)) where.parent.splice(Number(where.key), 1);
    else if (isRecord(where.parent)) delete where.parent[String(where.key)];
    return `delete ${label}`;
  }
  if (op < 0.55 && where) {
    let value = wrongValue(random);
    if (PATH_KEYS.has(String(where.key)) && typeof value === 'string') value = pick(random, ['', './fuzz folder', 'ü/ö', 'x\u0000y']);
    put(where.parent, where.key, value);
    return `${label} = ${JSON.stringify(value)?.slice(0, 30)}`;
  }
  if (op < 0.65) {
    const objects = all.map((p) => parentOf(config, [...p, 'x'])?.parent).filter(isRecord);
    const host = objects.length > 0 ? pick(random, objects) : config;
    const key = pick(random, UNKNOWN_KEYS);
    put(host, key, wrongValue(random));
    return `add unknown key "${key}"`;
  }
  if (op < 0.75) {
    config.webhooks = Array.from({ length: between(random, 1, 3) }, (_, i) => randomWebhook(random, i));
    return 'random webhooks';
  }
  if (op < 0.85) {
    const ui = isRecord(config.ui) ? config.ui : (config.ui = {});
    if (isRecord(ui)) ui.auth = randomAuth(random);
    return 'random ui.auth';
  }
  if (op < 0.93) {
    const slot = random() < 0.5 ? 'download_client' : 'library';
    config[slot] = randomSlot(random, slot);
    return `random ${slot}`;
  }
  config.plugins = [{ use: pick(random, SAFE_USES), config: random() < 0.5 ? {} : { topic_url: wrongValue(random) } }];
  return 'random plugins entry';
}

/** One textual mutation of YAML (syntax the object level cannot produce). */
function mutateText(text: string, random: () => number): { text: string; op: string } {
  const lines = text.split('\n');
  const line = between(random, 0, Math.max(0, lines.length - 1));
  switch (between(random, 0, 8)) {
    case 0:
      return { text: text.slice(0, between(random, 0, text.length)), op: 'truncate' };
    case 1:
      lines.splice(line, 1);
      return { text: lines.join('\n'), op: `delete line ${line + 1}` };
    case 2:
      lines.splice(line, 0, lines[line] ?? '');
      return { text: lines.join('\n'), op: `duplicate line ${line + 1}` };
    case 3: {
      const at = between(random, 0, text.length);
      const junk = pick(random, JUNK);
      return { text: text.slice(0, at) + junk + text.slice(at), op: `insert ${JSON.stringify(junk)}` };
    }
    case 4:
      lines[line] = (lines[line] ?? '').replace(/^ +/, '\t');
      return { text: lines.join('\n'), op: `tab indent line ${line + 1}` };
    case 5:
      return { text: `${text}\nbomb: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`, op: 'alias bomb' };
    case 6:
      lines[line] = `${lines[line] ?? ''} ${pick(random, ['!!js/function "x"', '!!binary aGk=', '!!timestamp 2001-12-14', '!!set {a}', '!!python/object:os.system'])}`;
      return { text: lines.join('\n'), op: `tag on line ${line + 1}` };
    case 7:
      return { text: text.replace(/\n/g, '\r\n').replace(/^/, '\uFEFF'), op: 'BOM and CRLF' };
    default: {
      const other = between(random, 0, Math.max(0, lines.length - 1));
      const a = lines[line] ?? '';
      lines[line] = lines[other] ?? '';
      lines[other] = a;
      return { text: lines.join('\n'), op: `swap lines ${line + 1} and ${other + 1}` };
    }
  }
}

/**
 * A mutated config.yaml: 1–3 structural changes to the example's values, and in a third of the cases a
 * textual change on top. Returns the YAML and a short description of what was done.
 */
export function mutateConfig(exampleText: string, random: () => number): { text: string; ops: string[] } {
  const doc = parseDocument(exampleText);
  const parsed: unknown = doc.toJS();
  const config: JsonRecord = isRecord(parsed) ? parsed : {};
  const ops: string[] = [];
  if (random() < 0.1) return { text: exampleText, ops: ['unchanged example'] };
  for (let i = between(random, 1, 3); i > 0; i--) ops.push(mutateObject(config, random));
  let text = stringify(config);
  if (random() < 0.33) {
    const mutated = mutateText(text, random);
    text = mutated.text;
    ops.push(mutated.op);
  }
  return { text, ops };
}
