import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { isJsonObject } from './is-json-object.js';
import { DEFAULT_CHAT_ID, startFakeTelegram, type FakeTelegram, type FakeTelegramOptions, type SentMessage } from './fake-telegram.js';

const CHAT = DEFAULT_CHAT_ID;
const USER = { id: 5_550_001, username: 'listener', first_name: 'Lee' };
const KEYBOARD = {
  inline_keyboard: [[{ text: 'Approve', callback_data: 'approve:1' }, { text: 'Reject', callback_data: 'reject:1' }], [{ text: 'Open', url: 'https://crateflow.example/queue/1' }]],
};
const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

async function start(t: TestContext, options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const fake = await startFakeTelegram(options);
  t.after(() => fake.close());
  return fake;
}

/** A Bot API call with a JSON body, the way most clients send it. */
function call(fake: FakeTelegram, method: string, params: Record<string, unknown> = {}, token = fake.token): Promise<Response> {
  return fetch(`${fake.apiUrl}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body), 'a JSON object');
  return body;
}

async function result(res: Response): Promise<Record<string, unknown>> {
  const body = await json(res);
  assert.equal(body['ok'], true, JSON.stringify(body));
  assert.ok(isJsonObject(body['result']), 'an object result');
  return body['result'];
}

async function updates(res: Response): Promise<Record<string, unknown>[]> {
  const body = await json(res);
  assert.equal(body['ok'], true, JSON.stringify(body));
  const list = body['result'];
  assert.ok(Array.isArray(list));
  return list.filter(isJsonObject);
}

/** Status and description of a refused call, for one deepEqual. */
async function refusal(res: Response): Promise<[number, unknown]> {
  const body = await json(res);
  assert.equal(body['ok'], false);
  assert.equal(body['error_code'], res.status);
  return [res.status, body['description']];
}

const badRequest = (description: string): [number, string] => [400, `Bad Request: ${description}`];

async function sendWithKeyboard(fake: FakeTelegram, text = 'New candidate'): Promise<SentMessage> {
  await result(await call(fake, 'sendMessage', { chat_id: CHAT, text, reply_markup: KEYBOARD }));
  const message = fake.sent.at(-1);
  assert.ok(message);
  return message;
}

/** Lets a request reach the fake before the test goes on (a long poll is only waiting once it has arrived). */
async function untilReceived(fake: FakeTelegram, count: number): Promise<void> {
  while (fake.received.length < count) await delay(5);
}

describe('fake Telegram', () => {
  it('takes parameters from the query, a form or a JSON body, with case-insensitive method names', async (t) => {
    const fake = await start(t);
    assert.match(fake.token, /^\d+:AA[\w-]{33}$/);
    const me = await result(await fetch(`${fake.apiUrl}/bot${fake.token}/GETME`));
    assert.deepEqual([me['is_bot'], me['username'], me['id']], [true, 'crateflow_test_bot', Number(fake.token.split(':')[0])]);

    await result(await fetch(`${fake.apiUrl}/bot${fake.token}/sendmessage?chat_id=${CHAT}&text=from+the+query`));
    const form = new URLSearchParams({ chat_id: String(CHAT), text: 'from a form', reply_markup: JSON.stringify(KEYBOARD) });
    await result(await fetch(`${fake.apiUrl}/bot${fake.token}/sendMessage`, { method: 'POST', body: form }));
    const multipart = new FormData();
    multipart.set('chat_id', String(CHAT));
    multipart.set('text', 'from multipart');
    await result(await fetch(`${fake.apiUrl}/bot${fake.token}/sendMessage`, { method: 'POST', body: multipart }));
    const fromBoth = await fetch(`${fake.apiUrl}/bot${fake.token}/sendMessage?text=query+wins`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chat_id: CHAT, text: 'body' }),
    });
    assert.equal((await result(fromBoth))['text'], 'query wins');
    assert.deepEqual(fake.sent.map((message) => message.text), ['from the query', 'from a form', 'from multipart', 'query wins']);
    assert.deepEqual(fake.sent[1]?.reply_markup, KEYBOARD);

    const plainText = await fetch(`${fake.apiUrl}/bot${fake.token}/sendMessage`, {
      method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ chat_id: CHAT, text: 'lost' }),
    });
    assert.deepEqual(await refusal(plainText), badRequest('message text is empty'), 'a body without a JSON or form type is ignored');
    assert.deepEqual(await refusal(await call(fake, 'sendMessage', { chat_id: 777, text: 'hi' })), badRequest('chat not found'));
    assert.deepEqual(await refusal(await call(fake, 'sendMessage', { text: 'hi' })), badRequest('chat_id is empty'));
  });

  it('records sendMessage and sendPhoto with their keyboards, as Telegram keeps them', async (t) => {
    const fake = await start(t);
    const keyboard = { inline_keyboard: [[{ text: '', callback_data: 'dropped' }, ...(KEYBOARD.inline_keyboard[0] ?? [])], [{ text: 'Open', url: 'https://crateflow.example/queue/1', callback_data: 'ignored' }]] };
    const text = await result(await call(fake, 'sendMessage', {
      chat_id: CHAT, text: '  <b>New</b> Artist &amp; Album &lt;3\n', parse_mode: 'HTML', reply_markup: keyboard, link_preview_options: { is_disabled: true },
    }));
    assert.deepEqual(
      [text['message_id'], text['text'], text['entities'], text['reply_markup']],
      [1, 'New Artist & Album <3', [{ type: 'bold', offset: 0, length: 3 }], KEYBOARD],
      'entities parsed, whitespace trimmed, an empty-text button dropped, url beats callback_data',
    );
    const photo = await result(await call(fake, 'sendPhoto', {
      chat_id: String(CHAT), photo: 'https://coverartarchive.org/release/1/front.jpg', caption: '<i>Cover</i>', parse_mode: 'html', reply_markup: JSON.stringify(KEYBOARD),
    }));
    assert.deepEqual([photo['caption'], photo['caption_entities'], Array.isArray(photo['photo'])], ['Cover', [{ type: 'italic', offset: 0, length: 5 }], true]);

    const [first, second] = await fake.waitForMessages(2, 1_000);
    assert.deepEqual(
      [first?.kind, first?.chat_id, first?.text, first?.parse_mode, first?.formatted.text, first?.link_preview_disabled, first?.reply_markup],
      ['text', CHAT, '  <b>New</b> Artist &amp; Album &lt;3\n', 'HTML', 'New Artist & Album <3', true, KEYBOARD],
    );
    assert.deepEqual([second?.kind, second?.photo, second?.caption, second?.reply_markup, second?.edits], ['photo', 'https://coverartarchive.org/release/1/front.jpg', '<i>Cover</i>', KEYBOARD, 0]);
    assert.equal(first?.raw.headers['content-type'], 'application/json');
  });

  it('refuses callback_data over 64 bytes and buttons Telegram cannot use', async (t) => {
    const fake = await start(t);
    const send = (button: Record<string, unknown>) => call(fake, 'sendMessage', { chat_id: CHAT, text: 'x', reply_markup: { inline_keyboard: [[button]] } });
    assert.equal((await send({ text: 'ok', callback_data: 'é'.repeat(32) })).status, 200, '64 bytes');
    assert.deepEqual(await refusal(await send({ text: 'no', callback_data: 'a'.repeat(65) })), badRequest('BUTTON_DATA_INVALID'));
    assert.deepEqual(await refusal(await send({ text: 'no', callback_data: 'é'.repeat(33) })), badRequest('BUTTON_DATA_INVALID'), 'bytes, not characters');
    assert.deepEqual(
      await refusal(await send({ text: 'plain' })),
      badRequest('can\'t parse inline keyboard button: Text buttons are unallowed in the inline keyboard'),
    );
    assert.deepEqual(await refusal(await send({ callback_data: 'x' })), badRequest('can\'t parse inline keyboard button: Can\'t find field "text"'));
    assert.deepEqual(await refusal(await send({ text: 'ftp', url: 'ftp://files.example/a' })), badRequest('inline keyboard button URL \'ftp://files.example/a\' is invalid: Unsupported URL protocol'));
    assert.deepEqual(await refusal(await send({ text: 'local', url: 'http://localhost:8080/' })), badRequest('inline keyboard button URL \'http://localhost:8080/\' is invalid: Wrong HTTP URL'));
    assert.equal((await send({ text: 'tg', url: 'tg://resolve?domain=crateflow' })).status, 200);
    assert.deepEqual(await refusal(await call(fake, 'sendMessage', { chat_id: CHAT, text: 'x', reply_markup: '{' })), badRequest('can\'t parse reply keyboard markup JSON object'));
    assert.deepEqual(fake.sent.map((message) => message.reply_markup?.inline_keyboard[0]?.[0]), [
      { text: 'ok', callback_data: 'é'.repeat(32) },
      { text: 'tg', url: 'tg://resolve?domain=crateflow' },
    ]);
  });

  it('parses HTML like Telegram: unsupported tags and a bare < are refused, a bare & is kept, limits count after parsing', async (t) => {
    const fake = await start(t);
    const send = (text: string, parse_mode = 'HTML') => call(fake, 'sendMessage', { chat_id: CHAT, text, parse_mode });
    const cases: [string, string][] = [
      ['<br>', 'Unsupported start tag "br" at byte offset 0'],
      ['a < b', 'Unsupported start tag "" at byte offset 2'],
      ['é <p>x</p>', 'Unsupported start tag "p" at byte offset 3'],
      ['<b>bold', 'Can\'t find end tag corresponding to start tag "b"'],
      ['<b>x</i>', 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'],
      ['x</b>', 'Unexpected end tag at byte offset 1'],
      ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
      ['<a href="x', 'Unclosed start tag at byte offset 0'],
    ];
    for (const [text, detail] of cases) assert.deepEqual(await refusal(await send(text)), badRequest(`can't parse entities: ${detail}`), text);
    assert.deepEqual(await refusal(await send('x', 'Markdown2')), badRequest('unsupported parse_mode'));

    const kept = await result(await send('Tom & Jerry &#60;3 <a href="https://crateflow.example">link</a> <span class="tg-spoiler">s</span> <pre><code class="language-ts">x</code></pre>'));
    assert.equal(kept['text'], 'Tom & Jerry <3 link s x');
    assert.deepEqual(kept['entities'], [
      { type: 'text_link', offset: 15, length: 4, url: 'https://crateflow.example/' },
      { type: 'spoiler', offset: 20, length: 1 },
      { type: 'pre', offset: 22, length: 1, language: 'ts' },
    ]);
    assert.equal((await send('<b>unparsed</b>', '')).status, 200, 'no parse_mode: tags are text');
    assert.equal(fake.sent.at(-1)?.formatted.text, '<b>unparsed</b>');

    assert.deepEqual(await refusal(await send('<b> \n</b>')), badRequest('text must be non-empty'));
    assert.deepEqual(await refusal(await send('a'.repeat(4097))), badRequest('message is too long'));
    assert.equal((await send(`<b>${'a'.repeat(4096)}</b>`)).status, 200, '4096 characters once the tags are gone');
    assert.equal((await send('😀'.repeat(4096))).status, 200, 'characters are code points');
    assert.deepEqual(await refusal(await send('a'.repeat(32_769))), badRequest('text is too long'), 'the raw byte limit comes first');
  });

  it('fails a photo URL Telegram cannot download, and a caption over 1024 characters', async (t) => {
    const fake = await start(t, { photoHosts: ['coverartarchive.org'] });
    const send = (photo: string, caption = '') => call(fake, 'sendPhoto', { chat_id: CHAT, photo, caption });
    assert.equal((await send('https://coverartarchive.org/release/1/front-500.jpg')).status, 200);
    assert.deepEqual(await refusal(await send('https://elsewhere.example/cover.jpg')), badRequest('wrong file identifier/HTTP URL specified'));
    assert.deepEqual(await refusal(await send('ftp://coverartarchive.org/a.jpg')), badRequest('invalid file HTTP URL specified: Unsupported URL protocol'));
    assert.deepEqual(await refusal(await send('https://coverartarchive.org/a.jpg', 'c'.repeat(1025))), badRequest('message caption is too long'));
    assert.deepEqual(await refusal(await call(fake, 'sendPhoto', { chat_id: CHAT })), badRequest('there is no photo in the request'));

    const open = await start(t, { photoUrlError: 'Failed to get HTTP URL content' });
    assert.equal((await call(open, 'sendPhoto', { chat_id: CHAT, photo: 'https://anywhere.example/a.jpg' })).status, 200);
    assert.deepEqual(
      await refusal(await call(open, 'sendPhoto', { chat_id: CHAT, photo: 'http://127.0.0.1:8080/cover.jpg' })),
      badRequest('failed to get HTTP URL content'),
      'Telegram cannot reach a loopback address',
    );
  });

  it('holds a long poll until an update arrives, and answers an empty one after the timeout', async (t) => {
    const fake = await start(t);
    const message = await sendWithKeyboard(fake);
    const startedAt = performance.now();
    const poll = call(fake, 'getUpdates', { timeout: 5 });
    await untilReceived(fake, 2);
    const id = fake.press(message, 'approve:1', USER);
    const [update] = await updates(await poll);
    assert.ok(performance.now() - startedAt < 1_000, 'the update ended the wait');
    const query = update?.['callback_query'];
    assert.ok(isJsonObject(query));
    assert.deepEqual([query['id'], query['data'], query['from']], [id, 'approve:1', { id: USER.id, is_bot: false, first_name: 'Lee', username: 'listener' }]);
    assert.ok(isJsonObject(query['message']));
    assert.deepEqual([query['message']['message_id'], query['message']['reply_markup']], [message.message_id, KEYBOARD]);
    assert.equal(typeof query['chat_instance'], 'string');

    const emptyAt = performance.now();
    const empty = await updates(await call(fake, 'getUpdates', { offset: Number(update?.['update_id']) + 1, timeout: 1 }));
    const waited = performance.now() - emptyAt;
    assert.deepEqual(empty, []);
    assert.ok(waited >= 950 && waited < 2_000, `waited ${waited} ms`);
  });

  it('confirms every update below the offset; ids go up by one; the same offset again within 0.5 s gets one update', async (t) => {
    const fake = await start(t);
    const message = await sendWithKeyboard(fake);
    for (const data of ['approve:1', 'reject:1', 'approve:1']) fake.press(message, data, USER);
    const all = await updates(await call(fake, 'getUpdates', {}));
    const ids = all.map((update) => Number(update['update_id']));
    assert.equal(ids.length, 3);
    assert.deepEqual(ids, [ids[0], (ids[0] ?? 0) + 1, (ids[0] ?? 0) + 2]);
    assert.equal((await updates(await call(fake, 'getUpdates', {}))).length, 1, 'a busy loop gets one update at a time');

    const [first = 0, , last = 0] = ids;
    assert.deepEqual((await updates(await call(fake, 'getUpdates', { offset: first + 1 }))).map((update) => update['update_id']), [first + 1, last]);
    assert.deepEqual((await updates(await call(fake, 'getUpdates', { offset: first }))).map((update) => update['update_id']), [first + 1, last], 'confirmed is gone');
    assert.deepEqual(await updates(await call(fake, 'getUpdates', { offset: last + 1 })), []);
    assert.deepEqual(await updates(await call(fake, 'getUpdates', { offset: 0, limit: 100 })), [], 'all confirmed');
  });

  it('answers 409 to getUpdates while a webhook is set, until it is deleted', async (t) => {
    const fake = await start(t);
    fake.setWebhook('https://crateflow.example/telegram');
    assert.deepEqual(await refusal(await call(fake, 'getUpdates', { timeout: 1 })), [
      409, 'Conflict: can\'t use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first',
    ]);
    assert.deepEqual(await json(await call(fake, 'deleteWebhook')), { ok: true, result: true, description: 'Webhook was deleted' });
    assert.deepEqual(await json(await call(fake, 'deleteWebhook')), { ok: true, result: true, description: 'Webhook is already deleted' });
    assert.deepEqual(await updates(await call(fake, 'getUpdates')), []);
    assert.deepEqual(await refusal(await call(fake, 'setWebhook', { url: 'http://crateflow.example/hook' })), badRequest('bad webhook: An HTTPS URL must be provided for webhook'));
  });

  it('answers 409 to the getUpdates that was waiting when a second one arrives; the second goes on', async (t) => {
    const fake = await start(t);
    const message = await sendWithKeyboard(fake);
    const first = call(fake, 'getUpdates', { timeout: 5 });
    await untilReceived(fake, 2);
    const second = call(fake, 'getUpdates', { timeout: 5 });
    assert.deepEqual(await refusal(await first), [409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running']);
    fake.press(message, 'reject:1', USER);
    assert.equal((await updates(await second)).length, 1);
  });

  it('takes one answer per callback query; a second one, an unknown id or a stale query is refused', async (t) => {
    const fake = await start(t, { callbackQueryTimeoutMs: 100 });
    const message = await sendWithKeyboard(fake);
    assert.throws(() => fake.press(message, 'no-such-button', USER), /no button/);
    const id = fake.press(message, 'approve:1', USER);
    assert.deepEqual(await json(await call(fake, 'answerCallbackQuery', { callback_query_id: id, text: 'Approved', show_alert: true })), { ok: true, result: true });
    assert.deepEqual(await fake.waitForAnswer(id, 1_000), { text: 'Approved', show_alert: true });
    const tooOld = badRequest('query is too old and response timeout expired or query ID is invalid');
    assert.deepEqual(await refusal(await call(fake, 'answerCallbackQuery', { callback_query_id: id })), tooOld, 'answered already');
    assert.deepEqual(await refusal(await call(fake, 'answerCallbackQuery', { callback_query_id: '12345' })), tooOld, 'unknown');

    const another = fake.press(message, 'reject:1', USER);
    assert.deepEqual(await refusal(await call(fake, 'answerCallbackQuery', { callback_query_id: another, text: 'x'.repeat(201) })), badRequest('MESSAGE_TOO_LONG'));
    await delay(150);
    assert.deepEqual(await refusal(await call(fake, 'answerCallbackQuery', { callback_query_id: another })), tooOld, 'too old');
  });

  it('applies editMessageCaption, refuses an edit that changes nothing and editMessageText on a photo', async (t) => {
    const fake = await start(t);
    await result(await call(fake, 'sendPhoto', { chat_id: CHAT, photo: 'https://coverartarchive.org/a.jpg', caption: 'Waiting', reply_markup: KEYBOARD }));
    const [photo] = fake.sent;
    assert.ok(photo);
    const edit = { chat_id: CHAT, message_id: photo.message_id, caption: '<b>Approved</b>', parse_mode: 'HTML', reply_markup: KEYBOARD };
    const edited = await result(await call(fake, 'editMessageCaption', edit));
    assert.deepEqual([edited['caption'], typeof edited['edit_date']], ['Approved', 'number']);
    assert.deepEqual([photo.caption, photo.formatted.text, photo.edits, photo.reply_markup], ['<b>Approved</b>', 'Approved', 1, KEYBOARD]);
    assert.deepEqual(await refusal(await call(fake, 'editMessageCaption', edit)), [400, NOT_MODIFIED]);
    assert.deepEqual(
      await refusal(await call(fake, 'editMessageText', { chat_id: CHAT, message_id: photo.message_id, text: 'Approved' })),
      badRequest('there is no text in the message to edit'),
    );

    const { reply_markup: _keyboard, ...withoutKeyboard } = edit;
    assert.equal((await call(fake, 'editMessageCaption', withoutKeyboard)).status, 200, 'leaving out reply_markup removes the keyboard');
    assert.deepEqual([photo.reply_markup, photo.edits], [undefined, 2]);
    assert.deepEqual(await refusal(await call(fake, 'editMessageReplyMarkup', { chat_id: CHAT, message_id: photo.message_id })), [400, NOT_MODIFIED]);
    assert.deepEqual(await refusal(await call(fake, 'editMessageCaption', { ...edit, message_id: 99 })), badRequest('message to edit not found'));

    const text = await sendWithKeyboard(fake, 'Pending');
    assert.deepEqual(await refusal(await call(fake, 'editMessageText', { chat_id: CHAT, message_id: text.message_id, text: 'Pending', reply_markup: KEYBOARD })), [400, NOT_MODIFIED]);
    assert.equal((await call(fake, 'editMessageText', { chat_id: CHAT, message_id: text.message_id, text: 'Done' })).status, 200);
    assert.deepEqual([text.text, text.reply_markup, text.edits], ['Done', undefined, 1]);
    assert.deepEqual(
      await refusal(await call(fake, 'editMessageCaption', { chat_id: CHAT, message_id: text.message_id, caption: 'x' })),
      badRequest('there is no caption in the message to edit'),
    );
  });

  it('floodNext answers 429 with retry_after and a Retry-After header to any method', async (t) => {
    const fake = await start(t);
    fake.floodNext(2, 7);
    for (const method of ['sendMessage', 'getMe']) {
      const res = await call(fake, method, { chat_id: CHAT, text: 'hi' });
      assert.equal(res.headers.get('retry-after'), '7');
      assert.deepEqual(await json(res), { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } });
    }
    assert.equal((await call(fake, 'sendMessage', { chat_id: CHAT, text: 'hi' })).status, 200);
    assert.equal(fake.sent.length, 1);
  });

  it('refuses a wrong token with 401, and a malformed token, an unknown method or path with 404', async (t) => {
    const fake = await start(t);
    const wrong = `${fake.token.split(':')[0]}:AA${'x'.repeat(33)}`;
    const res = await call(fake, 'getMe', {}, wrong);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await json(res), { ok: false, error_code: 401, description: 'Unauthorized' });
    assert.deepEqual(await refusal(await call(fake, 'getMe', {}, 'not a token')), [404, 'Not Found']);
    assert.deepEqual(await refusal(await call(fake, 'getMeNow')), [404, 'Not Found']);
    assert.deepEqual(await refusal(await fetch(`${fake.apiUrl}/getMe`)), [404, 'Not Found']);
    assert.equal(fake.received.length, 4);
  });

  it('close() ends a long poll in progress at once', async () => {
    const fake = await startFakeTelegram();
    const poll = call(fake, 'getUpdates', { timeout: 50 });
    await untilReceived(fake, 1);
    const closedAt = performance.now();
    await fake.close();
    const outcome = await poll.then(updates, (error: unknown) => error);
    assert.ok(Array.isArray(outcome) ? outcome.length === 0 : outcome instanceof Error, 'answered empty or cut off');
    assert.ok(performance.now() - closedAt < 500);
  });
});
