import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../../fakes/fake-telegram.js';
import { findQueueItem } from '../../helpers/find-queue-item.js';
import { api, eventually } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const CHAT = 424242;
const SECOND_CHAT = 515151;
const STRANGER_CHAT = 777;
const ALICE = { id: 1001, username: 'alice', first_name: 'Alice' };

interface Harness {
  app: StartedApp;
  telegram: FakeTelegram;
  add(album: string, extra?: Record<string, unknown>): Promise<QueueItem>;
}

async function start(t: TestContext, chatIds: number[] = [CHAT, SECOND_CHAT], extra: Record<string, unknown> = {}): Promise<Harness> {
  const telegram = await startFakeTelegram({ chats: [CHAT, SECOND_CHAT, STRANGER_CHAT], photoHosts: ['covers.example.org'] });
  const app = await startApp({
    config: {
      server: { public_url: 'https://music.example.org' },
      notifications: [{ name: 'family', type: 'telegram', bot_token: telegram.token, chat_ids: chatIds, api_url: telegram.apiUrl, poll_timeout_s: 1 }],
      ...extra,
    },
  });
  t.after(async () => {
    await app.close();
    await telegram.close();
  });
  return {
    app,
    telegram,
    async add(album, extra = {}) {
      const res = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Stereolab', album, ...extra });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const item = res.body.items[0];
      assert.ok(item);
      return item;
    },
  };
}

const statusOf = (app: StartedApp, id: string): Promise<QueueItem | undefined> => findQueueItem(app.baseUrl, id);

function buttons(message: SentMessage): { text: string; callback_data?: string; url?: string }[] {
  return (message.reply_markup?.inline_keyboard ?? []).flat() as { text: string; callback_data?: string; url?: string }[];
}

describe('Telegram notifications', () => {
  it('tells a requester of a decline in their own chat only, with no buttons', async (t) => {
    const key = 'kims-phone-key-0123456789';
    const h = await start(t, [CHAT], { ui: { auth: { api_keys: [{ name: 'kims-phone', key, role: 'requester', user: 'kim' }] } } });
    const refused = await api(h.app.baseUrl, 'POST', '/api/v1/users', { name: 'kim', notify: { channel: 'family', to: 'not-a-chat' } });
    assert.equal(refused.status, 400, 'a Telegram address is a chat id');
    assert.equal((await api(h.app.baseUrl, 'POST', '/api/v1/users', { name: 'kim', role: 'requester', notify: { channel: 'family', to: String(STRANGER_CHAT) } })).status, 201);
    const asked = await api<{ items: QueueItem[] }>(h.app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Stereolab', album: 'Emperor Tomato Ketchup', note: 'please' }, { 'x-api-key': key });
    const request = asked.body.items[0];
    assert.deepEqual([request?.status, request?.requested_by], ['pending', 'kim']);
    const [offer] = await h.telegram.waitForMessages(1, 10_000);
    assert.equal(offer?.chat_id, CHAT, 'the household chat is asked to decide, at once (a person asked)');
    assert.match(offer?.formatted.text ?? '', /Requested by kim: please/);
    assert.equal((await api(h.app.baseUrl, 'POST', `/api/v1/queue/${request?.id}/reject`, { reason: 'not on Soulseek' })).status, 200);
    const [, news] = await h.telegram.waitForMessages(2, 10_000);
    assert.equal(news?.chat_id, STRANGER_CHAT);
    assert.match(news?.formatted.text ?? '', /Declined: Stereolab – Emperor Tomato Ketchup[\s\S]*not on Soulseek/);
    assert.equal(news && buttons(news).some((b) => b.callback_data !== undefined), false, 'news has nothing to decide');
  });

  it('sends a photo with an escaped caption and buttons; Approve decides in place, edits the message, and a second press is refused', async (t) => {
    const h = await start(t);
    const item = await h.add('Dots & <Loops>', { year: 1997, cover_url: 'https://covers.example.org/dots.jpg' });
    const sent = await h.telegram.waitForMessages(2, 10_000);
    const message = sent.find((one) => one.chat_id === CHAT);
    assert.ok(message);
    assert.equal(message.kind, 'photo');
    assert.equal(message.chat_id, CHAT);
    assert.equal(message.photo, 'https://covers.example.org/dots.jpg');
    assert.match(message.formatted.text, /Stereolab – Dots & <Loops> \(1997\)/, 'the caption as Telegram shows it, after its HTML was parsed');
    const [approve, reject, open] = buttons(message);
    assert.deepEqual([approve?.text, reject?.text, open?.text], ['Approve', 'Reject', 'Open']);
    assert.ok(approve?.callback_data && Buffer.byteLength(approve.callback_data) <= 64);
    assert.equal(open?.url, 'https://music.example.org/queue', 'Open goes to the queue (behind sign-in), not to the link: a forwarded message must not decide');

    const press = h.telegram.press(message, approve.callback_data, ALICE);
    const answered = await h.telegram.waitForAnswer(press, 10_000);
    assert.equal(answered.text, 'Approved by telegram:alice');
    const decided = await statusOf(h.app, item.id);
    assert.deepEqual([decided?.status, decided?.decided_by, decided?.decided_via], ['approved', 'telegram:alice', 'notify:family']);
    const edited = await eventually(() => (message.edits ? message : undefined), 10_000, 'the message is edited');
    assert.match(edited.caption ?? '', /Approved by telegram:alice/);
    assert.equal(buttons(edited).length, 0, 'the buttons are gone');

    // The same candidate in the second chat still has its buttons: pressing there is refused.
    const second = h.telegram.sent.find((sent) => sent.chat_id === SECOND_CHAT);
    assert.ok(second);
    const [, secondReject] = buttons(second);
    const again = h.telegram.press(second, secondReject?.callback_data ?? '', { id: 1002, first_name: 'Bob' }, SECOND_CHAT);
    assert.match((await h.telegram.waitForAnswer(again, 10_000)).text ?? '', /Already decided\. It was approved by telegram:alice/);
    assert.equal((await statusOf(h.app, item.id))?.status, 'approved');
  });

  it('lets only the configured chats decide', async (t) => {
    const h = await start(t);
    const item = await h.add('Emperor Tomato Ketchup');
    const [message] = await h.telegram.waitForMessages(1, 10_000);
    assert.ok(message);
    assert.equal(message.kind, 'text', 'no cover: a text message');
    const [approve] = buttons(message);
    const press = h.telegram.press(message, approve?.callback_data ?? '', { id: 66, first_name: 'Mallory' }, STRANGER_CHAT);
    const answered = await h.telegram.waitForAnswer(press, 10_000);
    assert.equal(answered.text, 'This chat may not decide.');
    assert.equal((await statusOf(h.app, item.id))?.status, 'pending');
  });

  it('still reaches the other chats when one refuses the bot (chat not found), and does not send twice', async (t) => {
    const h = await start(t, [CHAT, 999_999, SECOND_CHAT]);
    await h.add('Transient Random-Noise Bursts');
    const sent = await h.telegram.waitForMessages(2, 10_000);
    assert.deepEqual(sent.map((message) => message.chat_id).sort(), [CHAT, SECOND_CHAT].sort());
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(h.telegram.sent.length, 2, 'no chat got it twice');
  });

  it('sends the message without its cover when Telegram cannot fetch the picture', async (t) => {
    const h = await start(t);
    await h.add('Mars Audiac Quintet', { cover_url: 'https://unreachable.example.net/cover.jpg' });
    const [message] = await h.telegram.waitForMessages(1, 10_000);
    assert.equal(message?.kind, 'text');
    assert.match(message?.text ?? '', /Mars Audiac Quintet/);
  });
});
