import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { writeAlbum } from '../helpers/write-album.js';
import { readExample, withEnv } from './example-flow.js';
import type { FlowNode } from './node-red-test-helper.js';
import { crateflowEvent, signWebhook } from './sign-webhook.js';
import { prepareNodeRed, type StartedNodeRed } from './start-node-red.js';

const API_KEY = 'node-red-approver-key-0001';
const SECRET = 'node-red-webhook-secret';

// Ids in the example flows that the test wires to its own URLs and credentials.
const CHAT_SERVER = 'c0a1b2c3d4e5f602';
const HOME_SERVER = 'b0a1b2c3d4e5f602';
const LIBRARY_SCAN_REQUEST = 'b0a1b2c3d4e5f605';

let workDir: string;
let nodeRed: StartedNodeRed;
let crateflow: StartedApp;
let chat: FakeWebhookReceiver;
let notify: FakeWebhookReceiver;
let exampleNodes: FlowNode[];

interface ListedItem {
  id: string;
  artist: string;
  album?: string;
}

/** The `items` of a Crateflow list or create answer. */
async function itemsOf(response: Response): Promise<ListedItem[]> {
  const body: unknown = await response.json();
  const items: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, 'items') : undefined;
  assert.ok(Array.isArray(items), `no items in ${JSON.stringify(body)}`);
  return items.map((item: unknown) => {
    const id: unknown = typeof item === 'object' && item !== null ? Reflect.get(item, 'id') : undefined;
    const artist: unknown = typeof item === 'object' && item !== null ? Reflect.get(item, 'artist') : undefined;
    const album: unknown = typeof item === 'object' && item !== null ? Reflect.get(item, 'album') : undefined;
    assert.ok(typeof id === 'string' && typeof artist === 'string', `not an item: ${JSON.stringify(item)}`);
    return { id, artist, ...(typeof album === 'string' ? { album } : {}) };
  });
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(crateflow.baseUrl + path, { ...init, headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...init.headers } });
}

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-e2e-'));
  chat = await startFakeWebhookReceiver();
  notify = await startFakeWebhookReceiver();
  nodeRed = await prepareNodeRed(join(workDir, 'node-red'));
  crateflow = await startApp({
    config: {
      ui: {
        auth: {
          enabled: true,
          type: 'basic',
          username: 'admin',
          password: 'admin-password-for-the-e2e-test',
          api_keys: [{ name: 'node-red', key: API_KEY, role: 'approver', scopes: ['read', 'decide'] }],
        },
      },
      webhooks: [
        { name: 'node-red-chat', url: `${nodeRed.url}/crateflow/chat`, secret: SECRET, events: ['queue_added', 'queue_approved'] },
      ],
    },
  });
  const env = { CRATEFLOW_URL: crateflow.baseUrl, NODE_RED_PUBLIC_URL: nodeRed.url, CHAT_URL: chat.url, NOTIFY_URL: notify.url };
  exampleNodes = [...(await readExample('chat-bot-approval.json')), ...(await readExample('home-automation.json'))];
  await nodeRed.start(withEnv(exampleNodes, env), {
    [CHAT_SERVER]: { apiKey: API_KEY, webhookSecret: SECRET },
    [HOME_SERVER]: { apiKey: API_KEY, webhookSecret: SECRET },
    [LIBRARY_SCAN_REQUEST]: { password: API_KEY },
  });
});

after(async () => {
  // Crateflow first: its outbox must not retry deliveries to a Node-RED that is already gone.
  await crateflow?.close();
  await nodeRed?.close();
  await chat?.close();
  await notify?.close();
  await rm(workDir, { recursive: true, force: true });
});

interface ChatMessage {
  text: string;
  item_id?: string;
  actions: Array<{ label: string; url: string }>;
}

/** The status of a Crateflow job once it is no longer running (polled, as a client would). */
async function jobStatus(jobId: unknown): Promise<unknown> {
  assert.equal(typeof jobId, 'string', 'a job id');
  let status: unknown = 'running';
  for (let attempt = 0; status === 'running' && attempt < 100; attempt += 1) {
    const job = await api(`/api/v1/jobs/${String(jobId)}`);
    assert.equal(job.status, 200);
    status = Reflect.get(Object(await job.json()), 'status');
    if (status === 'running') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return status;
}

function chatMessage(text: string): ChatMessage {
  const value: unknown = JSON.parse(text);
  assert.ok(typeof value === 'object' && value !== null && 'text' in value && 'actions' in value, `not a chat message: ${text}`);
  const { text: body, actions } = value;
  assert.ok(typeof body === 'string' && Array.isArray(actions));
  const itemId = 'item_id' in value && typeof value.item_id === 'string' ? value.item_id : undefined;
  return { text: body, ...(itemId ? { item_id: itemId } : {}), actions };
}

describe('Node-RED with the example flows against a real Crateflow', () => {
  it('loads both example flows from the installed package with Node-RED\'s shipped settings and no warnings', async () => {
    const loaded = await nodeRed.loadedTypes();
    for (const type of ['crateflow-server', 'crateflow-webhook', 'crateflow-queue']) assert.ok(loaded.includes(type), `${type} is not loaded: ${loaded.join(', ')}`);
    // Notices of the shipped settings themselves: projects are off, and with credentialSecret unset Node-RED
    // generates a key (a multi-line warning whose first line is empty) for the hand-written credentials file.
    const notices = /\[warn\] (Projects disabled|Encrypted credentials not found|\s*$)/;
    assert.deepEqual(nodeRed.warnings.filter((line) => !notices.test(line)), [], nodeRed.output());
  });

  it('asks the chat on queue_added, approves through the API on a click, and confirms on queue_approved', async () => {
    const added = await api('/api/v1/queue', { method: 'POST', body: JSON.stringify({ artist: 'Portishead', album: 'Dummy', source: 'e2e' }) });
    assert.equal(added.status, 201);
    const [created] = await itemsOf(added);
    assert.ok(created);
    const itemId = created.id;

    const [question] = await chat.waitFor(1, 60_000);
    assert.ok(question);
    const message = chatMessage(question.text);
    assert.equal(message.text, 'New in the queue: Portishead — Dummy');
    assert.equal(message.item_id, itemId);
    const approve = message.actions.find((action) => action.label === 'Approve');
    assert.ok(approve, 'the chat message has an Approve action');

    // The person in the chat presses Approve: the chat service calls the button's link.
    const click = await fetch(approve.url, { method: 'POST' });
    assert.equal(click.status, 200);
    assert.equal(await click.text(), 'Approved: Portishead — Dummy');

    const wishlist = await api('/api/v1/wishlist');
    assert.equal(wishlist.status, 200);
    const wanted = await itemsOf(wishlist);
    assert.ok(
      wanted.some((item) => item.artist === 'Portishead' && item.album === 'Dummy'),
      `wishlist: ${JSON.stringify(wanted)}`,
    );

    const [, confirmation] = await chat.waitFor(2, 60_000);
    assert.ok(confirmation);
    assert.equal(chatMessage(confirmation.text).text, 'Approved: Portishead — Dummy. Crateflow will download it.');
  });

  it('answers a second click on a decided item with 409 from Crateflow, through the flow\'s Catch node', async () => {
    const added = await api('/api/v1/queue', { method: 'POST', body: JSON.stringify({ artist: 'Massive Attack', album: 'Mezzanine' }) });
    const [created] = await itemsOf(added);
    assert.ok(created);
    await chat.waitFor(3, 60_000); // the queue_added question for this item
    const first = await fetch(`${nodeRed.url}/crateflow/decision?action=reject&id=${created.id}`, { method: 'POST' });
    assert.equal(await first.text(), 'Rejected: Massive Attack — Mezzanine');
    const second = await fetch(`${nodeRed.url}/crateflow/decision?action=approve&id=${created.id}`, { method: 'POST' });
    assert.equal(second.status, 409);
    assert.equal(await second.text(), 'Already decided.');
  });

  it('refuses a forged webhook with 401 and posts nothing to the chat', async () => {
    const before = chat.received.length;
    const forged = signWebhook('not-the-secret', crateflowEvent('queue_added', { id: 'forged', artist: 'Mallory' }));
    const response = await fetch(`${nodeRed.url}/crateflow/chat`, { method: 'POST', headers: forged.headers, body: forged.body });
    assert.equal(response.status, 401);
    const unsigned = await fetch(`${nodeRed.url}/crateflow/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: forged.body });
    assert.equal(unsigned.status, 401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(chat.received.length, before);
  });

  it('starts a library scan on Crateflow and notifies the house on download_completed', async () => {
    const delivery = signWebhook(SECRET, crateflowEvent('download_completed', { artist: 'Air', album: 'Moon Safari', download_path: '/music/Air/Moon Safari' }));
    const response = await fetch(`${nodeRed.url}/crateflow/home`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    assert.equal(response.status, 200);
    const [notification] = await notify.waitFor(1, 60_000);
    assert.ok(notification);
    const sent: unknown = JSON.parse(notification.text);
    assert.ok(typeof sent === 'object' && sent !== null && 'job_id' in sent && typeof sent.job_id === 'string', notification.text);
    assert.equal(Reflect.get(sent, 'download_path'), '/music/Air/Moon Safari');
    // Wait for the scan to finish, so no background work is left when Crateflow stops.
    assert.equal(await jobStatus(sent.job_id), 'completed');
  });

  it('verifies signed deliveries although the editor, served at /, parses JSON bodies first', async () => {
    const before = chat.received.length;
    const delivery = signWebhook(SECRET, crateflowEvent('queue_approved', { artist: 'Björk', album: 'Post' }));
    const response = await fetch(`${nodeRed.url}/crateflow/chat`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { received: true });
    const editor = await fetch(`${nodeRed.url}/`);
    assert.equal(editor.status, 200, 'the editor is served at / (shipped settings)');
    assert.match(await editor.text(), /Node-RED/);
    const confirmation = (await chat.waitFor(before + 1, 10_000)).at(-1);
    assert.ok(confirmation);
    assert.equal(chatMessage(confirmation.text).text, 'Approved: Björk — Post. Crateflow will download it.');
  });

  it('answers the chat\'s decision link opened in a browser with a confirm page naming the album, and decides nothing on GET', async () => {
    const before = chat.received.length;
    const added = await api('/api/v1/queue', { method: 'POST', body: JSON.stringify({ artist: 'Moloko', album: 'Statues' }) });
    const [created] = await itemsOf(added);
    assert.ok(created);
    const question = (await chat.waitFor(before + 1, 10_000))[before];
    assert.ok(question);
    const approve = chatMessage(question.text).actions.find((action) => action.label === 'Approve');
    assert.ok(approve, 'the chat message has an Approve action');
    const page = await fetch(approve.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    assert.match(html, /<p>approve Moloko — Statues\?<\/p>/);
    // The form posts the decision by id alone: the names in the link are display text.
    assert.match(html, new RegExp(`<form method="post" action="decision\\?action=approve&amp;id=${created.id}">`));
    const pending = await itemsOf(await api('/api/v1/queue/pending?q=Moloko'));
    assert.ok(pending.some((item) => item.id === created.id), 'a GET leaves the item pending');
    const confirm = await fetch(`${nodeRed.url}/crateflow/decision?action=approve&id=${created.id}`, { method: 'POST' });
    assert.equal(await confirm.text(), 'Approved: Moloko — Statues');
    await chat.waitFor(before + 2, 10_000); // the queue_approved confirmation
  });

  it('shows the names of a decision link on the confirm page as text, with HTML in them escaped', async () => {
    const link = new URL(`${nodeRed.url}/crateflow/decision`);
    link.search = new URLSearchParams({ action: 'reject', id: 'q_1', artist: '<img src=x onerror=alert(1)>', album: 'A & B' }).toString();
    const html = await (await fetch(link)).text();
    // Mustache's escaping, as Node-RED's template node applies it, turns = into &#x3D; as well.
    assert.match(html, /<p>reject &lt;img src&#x3D;x onerror&#x3D;alert\(1\)&gt; — A &amp; B\?<\/p>/);
    assert.doesNotMatch(html, /<img/);
  });

  it('names the track, not only the artist, in the chat for an event about a track item', async () => {
    const before = chat.received.length;
    const delivery = signWebhook(SECRET, crateflowEvent('queue_approved', { artist: 'Slowdive', title: 'Alison', type: 'track' }));
    const response = await fetch(`${nodeRed.url}/crateflow/chat`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    assert.equal(response.status, 200);
    const confirmation = (await chat.waitFor(before + 1, 10_000)).at(-1);
    assert.ok(confirmation);
    assert.equal(chatMessage(confirmation.text).text, 'Approved: Slowdive — Alison. Crateflow will download it.');
  });

  it('says "already in your library" in the decision answer and the queue_approved confirmation for an album the library has', async () => {
    const before = chat.received.length;
    const added = await api('/api/v1/queue', { method: 'POST', body: JSON.stringify({ artist: 'Low', album: 'Things We Lost in the Fire' }) });
    const [created] = await itemsOf(added);
    assert.ok(created);
    const question = (await chat.waitFor(before + 1, 10_000))[before];
    assert.ok(question);
    const approve = chatMessage(question.text).actions.find((action) => action.label === 'Approve');
    assert.ok(approve, 'the chat message has an Approve action');
    // While it waits, the album arrives in the library (the test's filesystem library, beside the data dir).
    await writeAlbum(join(dirname(crateflow.dataDir), 'music', 'Low', 'Things We Lost in the Fire'));
    const sync = await api('/api/v1/library/sync', { method: 'POST' });
    assert.equal(sync.status, 202, await sync.clone().text());
    assert.equal(await jobStatus(Reflect.get(Object(Reflect.get(Object(await sync.json()), 'job')), 'id')), 'completed');

    const click = await fetch(approve.url, { method: 'POST' });
    assert.equal(click.status, 200);
    assert.equal(await click.text(), 'Approved: Low — Things We Lost in the Fire. Already in your library, nothing to download.');
    const confirmation = (await chat.waitFor(before + 2, 10_000))[before + 1];
    assert.ok(confirmation);
    assert.equal(chatMessage(confirmation.text).text, 'Approved: Low — Things We Lost in the Fire. Already in your library, nothing to download.');
  });
});
