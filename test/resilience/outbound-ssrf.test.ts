import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { refuseAddress } from '../../plugins/sink-webhooks/address-policy.js';
import { fetchJson, isRecord, numberAt, postJson, recordsAt, stringAt } from './json-fields.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';
import { printReport } from './statistics.js';

// Issue 10, part 5: outbound SSRF. Webhook targets in the link-local / cloud-metadata ranges, written every way
// people use to slip past filters, are refused — by POST /api/v1/webhooks/test (live) and by real deliveries —
// while loopback and LAN targets keep working. A name that resolves to 169.254.169.254 comes from an /etc/hosts
// entry this test adds and removes. Where this machine has a real link-local address, a receiver listens on it,
// so a refusal that failed would show up as a request there. LAN: the policy itself for 10/8, 172.16/12,
// 192.168/16 and friends. No request is ever sent to a non-loopback address, not even this machine's own
// (this workplace flags traffic to private ranges): LAN delivery is proven by the policy, and by loopback.
//
// Sizing: well under a minute.

const TOKEN = `ssrf${process.pid}`;
const METADATA_NAME = `metadata-${TOKEN}.crateflow.test`;
const LOOPBACK_NAME = `loopback-${TOKEN}.crateflow.test`;
const HOSTS = '/etc/hosts';

/** Link-local / metadata targets in their sneaky spellings, each refused before any connection. */
const REFUSED_URLS = [
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/',
  'http://0251.0376.0251.0376/',
  'http://0xa9fea9fe/',
  'http://0xA9.0xFE.0xA9.0xFE/',
  'http://169.254.43518/',
  'http://0251.254.169.254/',
  'http://169.254.169.254./',
  'http://127.0.0.1:80@169.254.169.254/',
  'http://①⑥⑨.②⑤④.①⑥⑨.②⑤④/',
  'http://[::ffff:169.254.169.254]/',
  'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
  'http://[::169.254.169.254]/',
  'http://[64:ff9b::169.254.169.254]/',
  'http://[fe80::1]/',
  'http://[FE80::a9fe:a9fe]/',
  'http://[febf:ffff::1]/',
  'http://[fd00:ec2::254]/',
  'http://100.100.100.200/latest/meta-data/',
  'http://168.63.129.16/machine?comp=goalstate',
  'http://[::ffff:0:169.254.169.254]/',
  'http://[64:ff9b:1::a9fe:a9fe]/',
  'http://[64:ff9b:1:a9fe:a9:fe00::]/',
  'http://[2002:a9fe:a9fe::1]/',
  'http://[2002:a83f:8110::]/',
  'http://169.254.0.1:8080/',
  'https://169.254.169.254/',
  `http://${METADATA_NAME}/latest/meta-data/`,
  `http://${METADATA_NAME.toUpperCase()}:80/`,
];

interface Receiver {
  url: (host: string) => string;
  hits: number;
  server: Server;
}

async function listen(host: string, handler: (hits: number) => { status: number; location?: string }): Promise<Receiver> {
  const receiver: Receiver = { url: () => '', hits: 0, server: createServer() };
  receiver.server.on('request', (req, res) => {
    receiver.hits++;
    req.resume();
    const reply = handler(receiver.hits);
    res.writeHead(reply.status, reply.location ? { location: reply.location } : {}).end();
  });
  await new Promise<void>((resolve, reject) => {
    receiver.server.once('error', reject);
    receiver.server.listen(0, host, resolve);
  });
  const address = receiver.server.address();
  assert.ok(address && typeof address === 'object');
  receiver.url = (name: string) => `http://${name.includes(':') ? `[${name}]` : name}:${address.port}/hook`;
  return receiver;
}

/** This machine's own link-local address, if it has one: deliveries there must be refused before connecting. */
function localLinkLocal(): { address: string; scope: string } | undefined {
  for (const [name, list] of Object.entries(networkInterfaces())) {
    for (const info of list ?? []) {
      if (!info.internal && info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80:')) return { address: info.address, scope: name };
    }
  }
  return undefined;
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  await killAllServiceProcesses();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('outbound SSRF: link-local and metadata targets are refused, loopback and LAN work', () => {
  let service: ServiceProcess;
  const rows: [string, string][] = [];
  let loopback: Receiver;
  let redirector: Receiver;
  let linkLocalReceiver: Receiver | undefined;
  const local = { linkLocal: localLinkLocal() };

  before(async () => {
    // Names for this test only, removed again in after() (lines carrying TOKEN), whatever else edits the file.
    const original = await readFile(HOSTS, 'utf8');
    await writeFile(HOSTS, `${original.replace(/\n?$/, '\n')}169.254.169.254 ${METADATA_NAME}\n127.0.0.1 ${LOOPBACK_NAME}\n`);
    cleanups.push(async () => {
      const current = await readFile(HOSTS, 'utf8');
      await writeFile(HOSTS, current.split('\n').filter((line) => !line.includes(TOKEN)).join('\n'));
    });
    // The service's resolver reads /etc/hosts on every lookup; check here that the names resolve as intended.
    const { lookup } = await import('node:dns/promises');
    assert.equal((await lookup(METADATA_NAME)).address, '169.254.169.254', `${HOSTS} must be writable (run as root) for the name cases`);
    loopback = await listen('127.0.0.1', () => ({ status: 204 }));
    redirector = await listen('127.0.0.1', () => ({ status: 302, location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }));
    cleanups.push(async () => void loopback.server.close(), async () => void redirector.server.close());
    if (local.linkLocal) {
      linkLocalReceiver = await listen(`${local.linkLocal.address}%${local.linkLocal.scope}`, () => ({ status: 204 })).catch(() => undefined);
      if (linkLocalReceiver) cleanups.push(async () => void linkLocalReceiver?.server.close());
    }

    const dir = await mkdtemp(join(tmpdir(), 'crateflow-ssrf-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    const webhooks = [
      { name: 'metadata-decimal', url: 'http://2852039166/latest/meta-data/' },
      { name: 'metadata-mapped-ipv6', url: 'http://[::ffff:169.254.169.254]/' },
      { name: 'metadata-by-name', url: `http://${METADATA_NAME}/latest/meta-data/` },
      { name: 'redirect-to-metadata', url: redirector.url('127.0.0.1') },
      { name: 'loopback', url: loopback.url('127.0.0.1') },
      { name: 'loopback-by-name', url: loopback.url(LOOPBACK_NAME) },
      ...(linkLocalReceiver && local.linkLocal ? [{ name: 'real-link-local', url: linkLocalReceiver.url(local.linkLocal.address) }] : []),
    ].map((hook) => ({ ...hook, events: ['queue_added'], timeout_ms: 2000, retry: 0 }));
    const configPath = await writeServiceConfig(dir, port, { webhooks });
    service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', configPath], port });
  });

  after(() => {
    printReport('outbound SSRF', [
      ['sizing', 'about 30 live tests and 7 deliveries: a few seconds'],
      ['this machine', `link-local receiver on ${local.linkLocal ? `${local.linkLocal.address}%${local.linkLocal.scope}` : '(none)'}; LAN: policy only, no traffic`],
      ...rows,
    ]);
  });

  it('refuses every sneaky spelling of a link-local or metadata target in a live POST /webhooks/test, without connecting', async () => {
    for (const url of REFUSED_URLS) {
      const answer = await postJson(`${service.baseUrl}/api/v1/webhooks/test`, { url, timeout_ms: 3000 });
      const verdict = isRecord(answer.body) && answer.body.success === false ? `refused: ${stringAt(answer.body, 'error')}` : JSON.stringify(answer.body);
      rows.push([`test ${url}`, `${answer.status} ${verdict.slice(0, 150)}`]);
      if (answer.status === 400) continue; // not even a URL the service accepts (e.g. IDNA digits in a strict parser)
      assert.equal(answer.status, 200, `${url}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body && isRecord(answer.body) ? answer.body.success : undefined, false, `${url} must fail`);
      assert.match(stringAt(answer.body, 'error') ?? '', /refused to connect/, `${url} is refused by the address policy, not by chance (${stringAt(answer.body, 'error')})`);
      assert.ok(numberAt(answer.body, 'duration_ms') < 1000, `${url} was refused before a connection was attempted`);
    }
  });

  it('refuses a link-local address of this machine, even one where a receiver listens', async () => {
    // With a link-local interface, a receiver listens on it and must see nothing. A machine without one (some CI
    // containers) still gets the address check: a link-local target with nobody behind it is refused as quickly.
    const url = linkLocalReceiver && local.linkLocal ? linkLocalReceiver.url(local.linkLocal.address) : 'http://[fe80::1]:9/hook';
    const answer = await postJson(`${service.baseUrl}/api/v1/webhooks/test`, { url, timeout_ms: 3000 });
    rows.push([`test ${url}${linkLocalReceiver ? '' : ' (no link-local interface here)'}`, `${answer.status} ${stringAt(answer.body, 'error') ?? JSON.stringify(answer.body)}`]);
    assert.match(stringAt(answer.body, 'error') ?? '', /refused to connect to fe80:.*link-local address/);
    assert.ok(numberAt(answer.body, 'duration_ms') < 1000, 'refused before a connection was attempted');
    assert.equal(linkLocalReceiver?.hits ?? 0, 0, 'nothing reached the link-local receiver');
  });

  it('does not follow a redirect to the metadata address', async () => {
    const answer = await postJson(`${service.baseUrl}/api/v1/webhooks/test`, { url: redirector.url('127.0.0.1'), timeout_ms: 3000 });
    rows.push(['test redirect → 169.254.169.254', `${answer.status} ${stringAt(answer.body, 'error')}`]);
    assert.equal(isRecord(answer.body) ? answer.body.success : undefined, false);
    assert.match(stringAt(answer.body, 'error') ?? '', /redirect 302 .* not followed/);
  });

  it('still reaches loopback by address and by name', async () => {
    const targets = [loopback.url('127.0.0.1'), loopback.url(LOOPBACK_NAME)];
    for (const url of targets) {
      const answer = await postJson(`${service.baseUrl}/api/v1/webhooks/test`, { url, timeout_ms: 3000 });
      rows.push([`test ${url}`, `${answer.status} success ${isRecord(answer.body) ? String(answer.body.success) : '?'} (${isRecord(answer.body) ? String(answer.body.status_code) : ''})`]);
      assert.equal(isRecord(answer.body) ? answer.body.success : undefined, true, `${url}: ${JSON.stringify(answer.body)}`);
    }
    // LAN ranges, judged by the policy itself (no traffic to networks this test does not own).
    for (const address of ['10.0.0.5', '10.255.255.254', '172.16.0.1', '172.31.255.255', '192.168.1.20', '100.64.0.1', 'fd12:3456::1', '::ffff:192.168.1.20', '127.0.0.1', '::1']) {
      assert.equal(refuseAddress(address), undefined, `${address} is allowed`);
    }
    rows.push(['policy: LAN and loopback', 'allowed: 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, mapped LAN, 127/8, ::1']);
  });

  it('refuses the same targets in real deliveries and delivers to loopback', async () => {
    const added = await postJson(`${service.baseUrl}/api/v1/queue`, { artist: 'SSRF', album: 'Probe' });
    assert.equal(added.status, 201);
    const expectFailed = new Set(['metadata-decimal', 'metadata-mapped-ipv6', 'metadata-by-name', 'redirect-to-metadata', 'real-link-local']);
    let items: Record<string, unknown>[] = [];
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(200)) {
      items = recordsAt((await fetchJson(`${service.baseUrl}/api/v1/webhooks/deliveries?limit=50`)).body, 'items');
      if (items.length > 0 && items.every((d) => d.status !== 'pending')) break;
    }
    for (const delivery of items) {
      const name = stringAt(delivery, 'webhook') ?? '?';
      const attempts = recordsAt(delivery, 'attempts');
      const error = attempts.map((a) => stringAt(a, 'error') ?? `HTTP ${String(a.status_code)}`).join('; ');
      rows.push([`delivery to ${name}`, `${stringAt(delivery, 'status')}: ${error}`.slice(0, 170)]);
      if (expectFailed.has(name)) {
        assert.equal(delivery.status, 'failed', `${name} must not be delivered`);
        assert.match(error, name === 'redirect-to-metadata' ? /redirect 302 .* not followed/ : /refused to connect/, name);
      } else {
        assert.equal(delivery.status, 'delivered', `${name}: ${error}`);
      }
    }
    assert.equal(items.length, 6 + (linkLocalReceiver ? 1 : 0), 'one delivery per webhook');
    assert.equal(linkLocalReceiver?.hits ?? 0, 0, 'nothing reached the link-local receiver');
    assert.match(service.output(), /webhooks\[0\]\.url: deliveries will be refused/, 'a literal refused address is reported at startup');
  });
});
