import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { startFakeForwardAuth } from './fake-forward-auth.js';
import { startFakeJellyfin } from './fake-jellyfin.js';
import { startFakeSlskd, type FakeSlskd, type FakeSlskdPeer } from './fake-slskd.js';
import { startFakeSubsonic } from './fake-subsonic.js';
import { startFakeWebhookReceiver } from './fake-webhook-receiver.js';
import { generateAlbums } from './generate-albums.js';
import { isJsonObject } from './is-json-object.js';

const ALBUM = '@@abcde\\Music\\Radiohead\\OK Computer (1997)';
const PEERS: FakeSlskdPeer[] = [
  { username: 'good peer', behaviour: 'ok', files: [
    { filename: `${ALBUM}\\01 - Airbag.flac`, size: 4096, bitDepth: 16, sampleRate: 44100, length: 284 },
    { filename: `${ALBUM}\\02 - Paranoid Android.flac`, size: 8192 },
  ] },
  { username: 'gone', behaviour: 'offline', files: [{ filename: `${ALBUM}\\01 - Airbag.mp3`, size: 100, bitRate: 320 }] },
  { username: 'hidden', online: false, files: [{ filename: `${ALBUM}\\01 - Airbag.ogg`, size: 100 }] },
];

/** Walks into parsed JSON by object keys and array indexes; `undefined` as soon as a step does not exist. */
function dig(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const step of path) {
    if (typeof step === 'number') current = Array.isArray(current) ? current[step] : undefined;
    else current = isJsonObject(current) ? current[step] : undefined;
  }
  return current;
}

async function getJson(url: string, init?: RequestInit): Promise<unknown> {
  const body: unknown = await (await fetch(url, init)).json();
  return body;
}

async function startSlskd(t: TestContext, urlBase?: string): Promise<FakeSlskd> {
  const downloadsDir = await mkdtemp(join(tmpdir(), 'fake-slskd-'));
  const slskd = await startFakeSlskd({ downloadsDir, peers: PEERS, ...(urlBase ? { urlBase } : {}) });
  t.after(() => Promise.all([slskd.close(), rm(downloadsDir, { recursive: true, force: true })]));
  return slskd;
}

describe('fake slskd', () => {
  it('answers 401 with an empty body unless X-API-Key matches, and leaves /health open', async (t) => {
    const slskd = await startSlskd(t, '/slskd');
    const missing = await fetch(`${slskd.url}/api/v0/application`);
    assert.deepEqual([missing.status, await missing.text()], [401, '']);
    assert.equal((await fetch(`${slskd.url}/api/v0/application`, { headers: { 'X-API-Key': 'nope' } })).status, 401);
    assert.equal(await (await fetch(`${slskd.url}/health`)).text(), 'Healthy');
    const app = await getJson(`${slskd.url}/api/v0/application`, { headers: { 'X-API-Key': slskd.apiKey } });
    assert.equal(dig(app, 'server', 'isLoggedIn'), true);
    assert.equal((await fetch(`${slskd.url}/api/v0/nothing-here`, { headers: { 'X-API-Key': slskd.apiKey } })).status, 404);
  });

  it('hides search responses until the search completes as "Completed, TimedOut", and for two reads after (the completion race)', async (t) => {
    const slskd = await startSlskd(t);
    const headers = { 'X-API-Key': slskd.apiKey, 'Content-Type': 'application/json' };
    const post = (searchText: string) => fetch(`${slskd.url}/api/v0/searches`, { method: 'POST', headers, body: JSON.stringify({ searchText }) });
    const started: unknown = await (await post('radiohead AIRBAG')).json();
    assert.deepEqual([dig(started, 'state'), dig(started, 'endedAt')], ['InProgress', undefined]);
    const poll = () => getJson(`${slskd.url}/api/v0/searches/${String(dig(started, 'id'))}?includeResponses=true`, { headers });
    const first = await poll();
    assert.deepEqual([dig(first, 'isComplete'), dig(first, 'responses')], [false, []]);
    const racing = await poll();
    assert.deepEqual([dig(racing, 'state'), dig(racing, 'isComplete'), dig(racing, 'responseCount'), dig(racing, 'endedAt'), dig(racing, 'responses')],
      ['Completed, TimedOut', true, 2, undefined, []], 'complete is saved before endedAt and the responses');
    await poll();
    await poll();
    const done = await poll();
    assert.equal(dig(done, 'state'), 'Completed, TimedOut');
    assert.match(String(dig(done, 'endedAt')), /^\d{4}-/);
    assert.deepEqual([dig(done, 'responses', 0, 'username'), dig(done, 'responses', 1, 'username')], ['good peer', 'gone']);
    assert.equal(dig(done, 'responses', 1, 'files', 0, 'bitDepth'), undefined, 'unreported attributes are omitted');
    assert.match(String(dig(done, 'startedAt')), /\.\d{7}$/, 're-read records lose the Z, as after SQLite');
    slskd.state.connected = false;
    assert.equal((await post('anything')).status, 409);
  });

  it('walks a download to "Completed, Succeeded", then moves the file into <downloads>/<last folder>/<file> over the next reads', async (t) => {
    const slskd = await startSlskd(t);
    const headers = { 'X-API-Key': slskd.apiKey, 'Content-Type': 'application/json' };
    const enqueue = (user: string) => fetch(`${slskd.url}/api/v0/transfers/downloads/${encodeURIComponent(user)}`,
      { method: 'POST', headers, body: JSON.stringify([{ filename: `${ALBUM}\\01 - Airbag.flac`, size: 4096 }]) });
    const accepted = await enqueue('good peer');
    assert.equal(accepted.status, 201);
    assert.equal(dig(await accepted.json(), 'enqueued', 0, 'state'), 'Queued, Locally');
    const offline = await enqueue('gone');
    assert.equal(offline.status, 500);
    assert.match(await offline.text(), /offline/);
    const seen: unknown[] = [];
    const percents: number[] = [];
    while (seen.length < 10 && seen.at(-1) !== 'Completed, Succeeded') {
      const group = await getJson(`${slskd.url}/api/v0/transfers/downloads/${encodeURIComponent('good peer')}`, { headers });
      seen.push(dig(group, 'directories', 0, 'files', 0, 'state'));
      percents.push(Number(dig(group, 'directories', 0, 'files', 0, 'percentComplete')));
    }
    assert.deepEqual(seen, ['Queued, Remotely', 'InProgress', 'InProgress', 'Completed, Succeeded']);
    assert.deepEqual([percents[0], percents.at(-1)], [0, 100]);
    assert.ok(percents.every((percent, i) => i === 0 || percent > (percents[i - 1] ?? 0)), `rising: ${percents.join(', ')}`);
    const moved = join(slskd.downloadsDir, 'OK Computer (1997)', '01 - Airbag.flac');
    await assert.rejects(stat(moved), /ENOENT/, 'Succeeded comes before the move, as in slskd');
    await getJson(`${slskd.url}/api/v0/transfers/downloads`, { headers });
    assert.equal((await stat(moved)).size, 2048, 'a move across filesystems is a copy: half there');
    await getJson(`${slskd.url}/api/v0/transfers/downloads`, { headers });
    assert.equal((await stat(moved)).size, 4096);
  });

  it('refuses connections while restarting and keeps its transfers afterwards', async (t) => {
    const slskd = await startSlskd(t);
    const headers = { 'X-API-Key': slskd.apiKey, 'Content-Type': 'application/json' };
    await fetch(`${slskd.url}/api/v0/transfers/downloads/${encodeURIComponent('good peer')}`,
      { method: 'POST', headers, body: JSON.stringify([{ filename: `${ALBUM}\\02 - Paranoid Android.flac`, size: 8192 }]) });
    const restarted = slskd.restart(300);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(fetch(`${slskd.url}/health`));
    await restarted;
    assert.equal(dig(await getJson(`${slskd.url}/api/v0/transfers/downloads`, { headers }), 0, 'username'), 'good peer');
  });
});

describe('fake Subsonic', () => {
  const albums = generateAlbums(1200);
  const token = createHash('md5').update('hunter2x7Kp2Q').digest('hex');
  const auth = (client = 'crateflow') => `u=alice&t=${token}&s=x7Kp2Q&v=1.16.1&c=${client}&f=json`;

  it('answers a wrong password with code 40 and HTTP 200, and a missing c with code 10', async (t) => {
    const subsonic = await startFakeSubsonic({ username: 'alice', password: 'hunter2', albums });
    t.after(() => subsonic.close());
    const wrong = await fetch(`${subsonic.url}/rest/ping.view?u=alice&p=enc:${Buffer.from('nope').toString('hex')}&v=1.16.1&c=x&f=json`);
    assert.equal(wrong.status, 200);
    assert.deepEqual(dig(await wrong.json(), 'subsonic-response', 'error'), { code: 40, message: 'Wrong username or password' });
    const noClient = await getJson(`${subsonic.url}/rest/ping?u=alice&p=hunter2&v=1.16.1&f=json`);
    assert.equal(dig(noClient, 'subsonic-response', 'error', 'code'), 10);
    assert.equal(dig(await getJson(`${subsonic.url}/rest/ping?${auth()}`), 'subsonic-response', 'status'), 'ok');
  });

  it('clamps getAlbumList2 to 500, reports x-total-count and drops the album key on an empty page', async (t) => {
    const subsonic = await startFakeSubsonic({ username: 'alice', password: 'hunter2', albums });
    t.after(() => subsonic.close());
    const page = await fetch(`${subsonic.url}/rest/getAlbumList2?${auth()}&type=alphabeticalByName&size=900`);
    assert.equal(page.headers.get('x-total-count'), '1200');
    const list = dig(await page.json(), 'subsonic-response', 'albumList2', 'album');
    assert.equal(Array.isArray(list) && list.length, 500);
    assert.match(String(dig(list, 0, 'musicBrainzId')), /^[0-9a-f-]{36}$/);
    const empty = await getJson(`${subsonic.url}/rest/getAlbumList2?${auth()}&type=alphabeticalByName&size=500&offset=1500`);
    assert.deepEqual(dig(empty, 'subsonic-response', 'albumList2'), {});
    const legacy = await getJson(`${subsonic.url}/rest/getAlbumList2?${auth('Sub')}&type=newest&size=1`);
    assert.equal(dig(legacy, 'subsonic-response', 'albumList2', 'album', 0, 'musicBrainzId'), undefined, '"Sub" is inside "DSub"');
  });
});

describe('fake Jellyfin', () => {
  it('answers 401 without a token and sends ProviderIds only when Fields asks for them', async (t) => {
    const jellyfin = await startFakeJellyfin({ apiKey: 'key123', albums: generateAlbums(30), legacyAuth: false, version: '10.10.7' });
    t.after(() => jellyfin.close());
    const query = 'includeItemTypes=MusicAlbum&recursive=true&startIndex=10&limit=5';
    assert.equal((await fetch(`${jellyfin.url}/Items?${query}`)).status, 401);
    assert.equal((await fetch(`${jellyfin.url}/Items?${query}`, { headers: { 'X-Emby-Token': 'key123' } })).status, 401, 'legacy header is off');
    const headers = { Authorization: 'MediaBrowser Client="smoke", Token="key123"' };
    const bare = await getJson(`${jellyfin.url}/Items?${query}`, { headers });
    assert.deepEqual([dig(bare, 'TotalRecordCount'), dig(bare, 'StartIndex'), dig(bare, 'Items', 4, 'Type')], [30, 10, 'MusicAlbum']);
    assert.equal(dig(bare, 'Items', 0, 'ProviderIds'), undefined);
    assert.match(String(dig(bare, 'Items', 0, 'Id')), /^[0-9a-f]{32}$/);
    const withIds = await getJson(`${jellyfin.url}/items?${query}&FIELDS=ProviderIds&ApiKey=key123`);
    assert.match(String(dig(withIds, 'Items', 0, 'ProviderIds', 'MusicBrainzAlbum')), /^[0-9a-f-]{36}$/);
    assert.equal((await fetch(`${jellyfin.url}/Library/Refresh`, { method: 'POST', headers })).status, 204);
  });
});

describe('fake forward-auth', () => {
  it('redirects a browser, answers 401 to an API client, and passes a session with Remote-* headers', async (t) => {
    const auth = await startFakeForwardAuth({ rules: [{ resources: /^\/api\/v1\/health$/, policy: 'bypass' }] });
    t.after(() => auth.close());
    auth.addSession('abc', { user: 'alice', groups: ['admins', 'music'], name: 'Alice', email: 'alice@example.test' });
    const forwarded = { 'X-Forwarded-Method': 'GET', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'music.example.test', 'X-Forwarded-Uri': '/queue' };
    const endpoint = `${auth.url}/api/authz/forward-auth`;
    assert.equal((await fetch(endpoint, { headers: { ...forwarded, 'X-Forwarded-Proto': 'http' } })).status, 400);
    const browser = await fetch(endpoint, { headers: { ...forwarded, Accept: 'text/html' }, redirect: 'manual' });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), 'https://auth.example.test/?rd=https%3A%2F%2Fmusic.example.test%2Fqueue&rm=GET');
    assert.equal((await fetch(endpoint, { headers: { ...forwarded, Accept: 'application/json' } })).status, 401);
    const ok = await fetch(endpoint, { headers: { ...forwarded, Cookie: 'authelia_session=abc' } });
    assert.deepEqual([ok.status, ok.headers.get('remote-user'), ok.headers.get('remote-groups')], [200, 'alice', 'admins,music']);
    assert.equal((await fetch(endpoint, { headers: { ...forwarded, 'X-Forwarded-Uri': '/api/v1/health' } })).status, 200);
    const nginx = await fetch(`${auth.url}/api/authz/auth-request`,
      { headers: { 'X-Original-Method': 'GET', 'X-Original-URL': 'https://music.example.test/', Accept: 'text/html' } });
    assert.deepEqual([nginx.status, nginx.headers.get('location')?.startsWith('https://auth.example.test/?rd=')], [401, true]);
  });
});

describe('fake webhook receiver', () => {
  it('records the exact body bytes and answers as scripted: reset, then redirect, then 200', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    t.after(() => receiver.close());
    receiver.respondWith((_request, index) => (index === 0 ? { reset: true } : index === 1 ? { redirectTo: 'https://elsewhere.test/' } : {}));
    const body = '{"event":"download_completed", "data":{"album":"Ünïcode"}}';
    const send = () => fetch(receiver.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, redirect: 'manual' });
    await assert.rejects(send());
    assert.equal((await send()).status, 302);
    assert.equal((await send()).status, 200);
    const requests = await receiver.waitFor(3, 60_000);
    assert.ok(requests.every((request) => request.body.equals(Buffer.from(body, 'utf8'))));
    await assert.rejects(receiver.waitFor(4, 50), /expected 4 webhook request/);
  });
});
