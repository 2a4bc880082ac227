import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../helpers/manual-clock.js';
import { startFakeWebhookReceiver } from './fake-webhook-receiver.js';
import { isJsonObject } from './is-json-object.js';
import {
  NTFY_ANDROID_USER_AGENT,
  pressHttpAction,
  startFakeNtfy,
  type FakeNtfy,
  type FakeNtfyOptions,
  type NtfyHttpAction,
} from './fake-ntfy.js';

const TOKEN = 'tk_abcdefghijklmnopqrstuvwxyz012';
const AUTH_LINK = 'https://ntfy.sh/docs/publish/#authentication';
const LIMITS_LINK = 'https://ntfy.sh/docs/publish/#limitations';

async function start(t: TestContext, options: FakeNtfyOptions = {}): Promise<FakeNtfy> {
  const fake = await startFakeNtfy(options);
  t.after(() => fake.close());
  return fake;
}

/** A JSON publish to the server root, the way our client sends it. */
function publish(fake: FakeNtfy, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fake.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body), 'a JSON object');
  return body;
}

/** Status and error JSON of a refused request, for one deepEqual. */
async function refusal(res: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: res.status, body: await json(res) };
}

describe('fake ntfy', () => {
  it('accepts a JSON publish at the root, answers the message JSON and records it with its actions', async (t) => {
    const fake = await start(t);
    const res = await publish(fake, {
      topic: 'crateflow',
      title: 'New candidate',
      message: 'Artist — Album',
      tags: ['inbox_tray'],
      priority: 4,
      click: 'https://crateflow.example/queue',
      markdown: true,
      actions: [
        { action: 'view', label: 'Open', url: 'https://crateflow.example/queue/1' },
        { action: 'http', label: 'Approve', url: 'https://crateflow.example/api/approve', headers: { Authorization: 'Bearer cf' }, body: '{"id":1}', clear: true },
        { action: 'copy', label: 'Copy path', value: '/music/Artist/Album' },
      ],
    });
    assert.equal(res.status, 200);
    assert.deepEqual([res.headers.get('content-type'), res.headers.get('access-control-allow-origin')], ['application/json', '*']);
    const text = await res.text();
    assert.ok(text.endsWith('}\n'), 'json.Encoder ends with a newline');
    const wire: unknown = JSON.parse(text);
    assert.ok(isJsonObject(wire));
    assert.match(String(wire['id']), /^[A-Za-z0-9]{12}$/);
    assert.equal(wire['expires'], Number(wire['time']) + 12 * 3600);
    assert.deepEqual(
      [wire['event'], wire['topic'], wire['title'], wire['message'], wire['priority'], wire['tags'], wire['content_type']],
      ['message', 'crateflow', 'New candidate', 'Artist — Album', 4, ['inbox_tray'], 'text/markdown'],
    );

    const [message] = await fake.waitFor(1);
    assert.ok(message);
    assert.deepEqual(wire['actions'], message.actions, 'the answer carries the recorded actions');
    const [view, http, copy] = message.actions;
    assert.deepEqual(message.actions.map((action) => action.id.length), [10, 10, 10]);
    assert.deepEqual(view && { ...view, id: '' }, { id: '', action: 'view', label: 'Open', url: 'https://crateflow.example/queue/1', clear: false });
    assert.deepEqual(http && { ...http, id: '' }, {
      id: '', action: 'http', label: 'Approve', url: 'https://crateflow.example/api/approve', clear: true,
      headers: { Authorization: 'Bearer cf' }, body: '{"id":1}',
    });
    assert.equal(http?.method, undefined, 'no method stored: the app defaults to POST');
    assert.equal(copy?.value, '/music/Artist/Album');
    assert.deepEqual([message.topic, message.markdown, message.raw.method, message.raw.path], ['crateflow', true, 'POST', '/']);
  });

  it('decodes the body like Go: every body is read as JSON, unknown keys ignored, names case-insensitive, trailing text ignored', async (t) => {
    const fake = await start(t);
    const loose = await publish(fake, '{"TOPIC":"crateflow","Message":"  hi  ","colour":"red","tags":["a,b"," c ",""]} and then some');
    const body = await json(loose);
    assert.deepEqual([loose.status, body['message'], body['tags']], [200, 'hi', ['a', 'b', 'c']], 'tags are re-split on commas and trimmed');
    const empty = await json(await publish(fake, { topic: 'crateflow' }));
    assert.equal(empty['message'], 'triggered');
    const escaped = await (await publish(fake, { topic: 'crateflow', message: '<b>&' })).text();
    assert.match(escaped, /"message":"\\u003cb\\u003e\\u0026"/, 'Go escapes HTML characters');

    const invalid = { status: 400, body: { code: 40024, http: 400, error: 'invalid request: request body must be valid JSON' } };
    for (const bad of ['hello', '', '[{"topic":"crateflow"}]', '{"topic":"crateflow","priority":"4"}', '{"topic":"crateflow","tags":"a"}', '{"topic":"crateflow"']) {
      assert.deepEqual(await refusal(await publish(fake, bad)), invalid, bad);
    }
    assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow', priority: 6 })), {
      status: 400, body: { code: 40007, http: 400, error: 'invalid priority parameter', link: 'https://ntfy.sh/docs/publish/#message-priority' },
    });
    assert.equal(fake.messages.length, 3);
    assert.equal(fake.received.length, 10);
  });

  it('refuses more than 3 actions, an unknown action type and missing fields with 40018', async (t) => {
    const fake = await start(t);
    const view = { action: 'view', label: 'Open', url: 'https://crateflow.example/' };
    const actionsError = (detail: string) => ({
      status: 400,
      body: { code: 40018, http: 400, error: `invalid request: actions invalid; ${detail}`, link: 'https://ntfy.sh/docs/publish/#action-buttons' },
    });
    assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow', actions: [view, view, view, view] })), actionsError('only 3 actions allowed'));
    const cases: [unknown, string][] = [
      [{ action: 'open', label: 'Open', url: 'https://x' }, "parameter 'action' cannot be 'open', valid values are 'view', 'broadcast', 'http' and 'copy'"],
      [{ action: 'view', url: 'https://x' }, "parameter 'label' is required"],
      [{ action: 'http', label: 'Go' }, "parameter 'url' is required for action 'http'"],
      [{ action: 'http', label: 'Go', url: 'https://x', method: 'get', body: 'b' }, "parameter 'body' cannot be set if method is GET"],
      [{ action: 'copy', label: 'Copy' }, "parameter 'value' is required for action 'copy'"],
    ];
    for (const [action, detail] of cases) {
      assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow', actions: [action] })), actionsError(detail), detail);
    }
    const upper = await json(await publish(fake, { topic: 'crateflow', actions: [{ action: 'HTTP', label: 'Go', url: 'ftp:nope', method: 'put' }] }));
    assert.deepEqual(fake.messages[0]?.actions.map((a) => [a.action, a.method, a.url]), [['http', 'PUT', 'ftp:nope']], 'action URLs are not validated');
    assert.ok(Array.isArray(upper['actions']));
  });

  it('refuses a bad topic: 40009 in JSON, 40010 for a reserved name, 404 on a path that is no topic', async (t) => {
    const fake = await start(t);
    const invalid = { status: 400, body: { code: 40009, http: 400, error: 'invalid request: topic invalid' } };
    for (const topic of ['bad topic', 'a'.repeat(65), '', 'crate.flow', undefined]) {
      assert.deepEqual(await refusal(await publish(fake, { topic, message: 'x' })), invalid, String(topic));
    }
    assert.deepEqual(await refusal(await publish(fake, { topic: 'docs' })), {
      status: 400, body: { code: 40010, http: 400, error: 'invalid request: topic name is not allowed' },
    });
    const path = await fetch(`${fake.url}/crate.flow`, { method: 'POST', body: 'x' });
    assert.deepEqual(await refusal(path), { status: 404, body: { code: 40401, http: 404, error: 'page not found' } });
    assert.equal((await publish(fake, { topic: 'a'.repeat(64) })).status, 200);
  });

  it('records the plain form: body as message, parameters from headers, actions in the simple format', async (t) => {
    const fake = await start(t);
    const res = await fetch(`${fake.url}/crateflow?tags=ignored`, {
      method: 'PUT',
      headers: {
        Title: '=?UTF-8?B?Q3JhdGVmbG93IOKAlCBOZXU=?=',
        Tags: 'inbox_tray, musical_note',
        Priority: 'high',
        Actions: 'http, "Approve, now", https://crateflow.example/approve, method=put, headers.X-Token=abc, clear=yes; view, Open, https://crateflow.example',
      },
      body: '  Artist — Album\n',
    });
    assert.equal(res.status, 200);
    const [message] = await fake.waitFor(1);
    assert.deepEqual(
      [message?.title, message?.message, message?.tags, message?.priority],
      ['Crateflow — Neu', 'Artist — Album', ['inbox_tray', 'musical_note'], 4],
      'RFC 2047 title decoded, body trimmed, header beats query, priority by name',
    );
    assert.deepEqual(message?.actions.map(({ id: _id, ...rest }) => rest), [
      { action: 'http', label: 'Approve, now', url: 'https://crateflow.example/approve', method: 'PUT', headers: { 'X-Token': 'abc' }, clear: true },
      { action: 'view', label: 'Open', url: 'https://crateflow.example', clear: false },
    ]);
    const webhook = await fetch(`${fake.url}/crateflow/trigger?message=Door%20open`);
    assert.equal((await json(webhook))['message'], 'Door open');
  });

  it('with a token: 403 without credentials, 401 for wrong ones (before the body is even read), 200 with Bearer or Basic', async (t) => {
    await assert.rejects(startFakeNtfy({ token: 'secret' }), /tk_/);
    const fake = await start(t, { token: TOKEN });
    const message = { topic: 'crateflow', message: 'hi' };
    assert.deepEqual(await refusal(await publish(fake, message)), {
      status: 403, body: { code: 40301, http: 403, error: 'forbidden', link: AUTH_LINK },
    });
    const unauthorized = { status: 401, body: { code: 40101, http: 401, error: 'unauthorized', link: AUTH_LINK } };
    assert.deepEqual(await refusal(await publish(fake, message, { authorization: 'Bearer tk_0000000000000000000000000000z' })), unauthorized);
    assert.deepEqual(await refusal(await publish(fake, message, { authorization: `bearer ${TOKEN}` })), unauthorized, 'Go checks the "Bearer" prefix case-sensitively');
    assert.deepEqual(await refusal(await publish(fake, 'not json', { authorization: 'Bearer wrong' })), unauthorized);
    assert.equal((await publish(fake, 'not json')).status, 400, 'the 403 comes only after the body parsed');
    assert.equal((await publish(fake, message, { authorization: 'Token whatever' })).status, 403, 'another scheme is anonymous');

    assert.equal((await publish(fake, message, { authorization: `Bearer ${TOKEN}` })).status, 200);
    const basic = `Basic ${Buffer.from(`:${TOKEN}`).toString('base64')}`;
    assert.equal((await publish(fake, message, { authorization: basic })).status, 200, 'empty user name, token as password');
    const query = Buffer.from(`Bearer ${TOKEN}`).toString('base64url');
    assert.equal((await fetch(`${fake.url}/?auth=${query}`, { method: 'POST', body: JSON.stringify(message) })).status, 200);
    assert.equal(fake.messages.length, 3);

    const open = await start(t);
    assert.equal((await publish(open, message, { authorization: 'Bearer anything' })).status, 200, 'no auth configured: the header is ignored');
  });

  it('limits failed logins: the 31st wrong token in a row is 42909 until the bucket refills', async (t) => {
    const clock = new ManualClock();
    const fake = await start(t, { token: TOKEN, clock });
    const wrong = { authorization: 'Bearer tk_0000000000000000000000000000z' };
    for (let i = 0; i < 30; i++) assert.equal((await publish(fake, { topic: 'crateflow' }, wrong)).status, 401, `attempt ${i + 1}`);
    assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow' }, wrong)), {
      status: 429, body: { code: 42909, http: 429, error: 'limit reached: too many auth failures', link: LIMITS_LINK },
    });
    await clock.advance(60_000);
    assert.equal((await publish(fake, { topic: 'crateflow' }, wrong)).status, 401);
  });

  it('rateLimitNext answers ntfy\'s 429 (no Retry-After) to the next publishes that reach the limiter', async (t) => {
    const fake = await start(t);
    fake.rateLimitNext(2);
    assert.equal((await publish(fake, { topic: 'bad topic' })).status, 400, 'refused before the limiter: not counted');
    for (let i = 0; i < 2; i++) {
      const res = await publish(fake, { topic: 'crateflow', message: 'hi' });
      assert.deepEqual([res.headers.get('retry-after'), res.headers.get('content-type')], [null, 'application/json']);
      assert.deepEqual(await refusal(res), {
        status: 429, body: { code: 42901, http: 429, error: 'limit reached: too many requests', link: LIMITS_LINK },
      });
    }
    assert.equal((await publish(fake, { topic: 'crateflow', message: 'hi' })).status, 200);
    assert.deepEqual([fake.messages.length, fake.rejected], [1, 3]);
  });

  it('has ntfy\'s default request bucket: 60 at once, then one per 5 s', async (t) => {
    const clock = new ManualClock();
    const fake = await start(t, { clock });
    for (let i = 0; i < 60; i++) assert.equal((await publish(fake, { topic: 'crateflow' })).status, 200);
    assert.equal((await publish(fake, { topic: 'crateflow' })).status, 429);
    await clock.advance(5_000);
    assert.equal((await publish(fake, { topic: 'crateflow' })).status, 200);
    assert.equal((await publish(fake, { topic: 'crateflow' })).status, 429);
  });

  it('takes a message up to the size limit as text; beyond it ntfy wants an attachment, which a default server refuses', async (t) => {
    const fake = await start(t);
    assert.equal((await json(await publish(fake, { topic: 'crateflow', message: 'a'.repeat(4096) })))['message'], 'a'.repeat(4096));
    assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow', message: 'a'.repeat(4097) })), {
      status: 400, body: { code: 40014, http: 400, error: 'invalid request: attachments not allowed', link: 'https://ntfy.sh/docs/config/#attachments' },
    });
    assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow', message: 'a'.repeat(8200) })), {
      status: 413, body: { code: 41303, http: 413, error: 'JSON body too large' },
    }, 'the JSON body may be at most twice the message limit');
    // With an external attachment URL the body is the message, cut to the limit in bytes: through an "é" it is not UTF-8.
    const attach = 'https://crateflow.example/cover.jpg';
    const cut = await json(await publish(fake, { topic: 'crateflow', attach, message: 'b'.repeat(5000) }));
    assert.deepEqual([cut['message'], cut['attachment']], ['b'.repeat(4096), { name: 'cover.jpg', url: attach }]);
    assert.deepEqual(await refusal(await publish(fake, { topic: 'crateflow', attach, message: `${'b'.repeat(4095)}é` })), {
      status: 400, body: { code: 40011, http: 400, error: 'invalid request: message must be UTF-8 encoded' },
    });

    // A small limit shrinks the JSON cap with it (2 × 10 bytes), so the JSON form fails on the envelope alone.
    const small = await start(t, { messageSizeLimit: 10 });
    assert.equal((await publish(small, { topic: 'crateflow', message: 'x' })).status, 413);
    assert.equal((await fetch(`${small.url}/crateflow`, { method: 'POST', body: 'x'.repeat(10) })).status, 200);
    assert.equal((await fetch(`${small.url}/crateflow`, { method: 'POST', body: 'x'.repeat(11) })).status, 400);
  });

  it('turns an over-long message into an attachment when the server keeps files, as ntfy.sh does', async (t) => {
    const fake = await start(t, { attachments: true });
    const body = await json(await publish(fake, { topic: 'crateflow', title: 'Report', message: 'c'.repeat(5000) }));
    const [message] = fake.messages;
    assert.ok(message);
    assert.deepEqual([body['message'], body['title']], ['You received a file: attachment.txt', 'Report']);
    assert.deepEqual(body['attachment'], {
      name: 'attachment.txt', type: 'text/plain; charset=utf-8', size: 5000, expires: message.time + 3 * 3600,
      url: `${fake.url}/file/${message.id}.txt`,
    });
  });

  it('pressHttpAction sends what the Android app sends: POST, an empty body and no Content-Type by default', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    t.after(() => receiver.close());
    const fake = await start(t);
    await publish(fake, { topic: 'crateflow', actions: [{ action: 'http', label: 'Approve', url: receiver.url }] });
    const action = fake.messages[0]?.actions.find((candidate): candidate is NtfyHttpAction => candidate.action === 'http');
    assert.ok(action);
    assert.deepEqual(await pressHttpAction(action), { status: 200, text: '' });
    await pressHttpAction({ url: receiver.url, method: 'PUT', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer cf' }, body: '{"id":1}' });
    await pressHttpAction({ url: receiver.url, method: 'GET' });
    const [pressed, put, get] = await receiver.waitFor(3);
    assert.deepEqual(
      [pressed?.method, pressed?.text, pressed?.headers['content-type'], pressed?.headers['content-length'], pressed?.headers['user-agent']],
      ['POST', '', undefined, '0', NTFY_ANDROID_USER_AGENT],
    );
    assert.deepEqual([put?.method, put?.text, put?.headers['content-type'], put?.headers.authorization], ['PUT', '{"id":1}', 'application/json', 'Bearer cf']);
    assert.deepEqual([get?.method, get?.text], ['GET', '']);

    receiver.respondWith(() => ({ status: 500, body: 'nope' }));
    assert.deepEqual(await pressHttpAction({ url: receiver.url }), { status: 500, text: 'nope' });
    await assert.rejects(pressHttpAction({ url: receiver.url, method: 'HEAD', body: 'x' }), /must not have a request body/);
  });

  it('waitFor rejects when too few messages arrive in time', async (t) => {
    const fake = await start(t);
    await assert.rejects(fake.waitFor(1, 50), /expected 1 ntfy message\(s\), got 0 within 50 ms/);
  });
});
