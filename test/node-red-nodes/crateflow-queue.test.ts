import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { buildNodePackage } from './build-node-package.js';
import { startFakeCrateflowApi, type FakeCrateflowApi } from './fake-crateflow-api.js';
import { NodeRedTestHelper, nextEvent, type FlowNode, type LoadedFlow, type SpyCall } from './node-red-test-helper.js';

const API_KEY = 'key-for-node-red';
let workDir: string;
let helper: NodeRedTestHelper;
let api: FakeCrateflowApi;

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-queue-'));
  helper = new NodeRedTestHelper(await buildNodePackage(join(workDir, 'package')));
  await helper.start();
});
after(async () => {
  await helper.stop();
  await rm(workDir, { recursive: true, force: true });
});
beforeEach(async () => {
  api = await startFakeCrateflowApi(API_KEY);
});
afterEach(async () => {
  await helper.unload();
  await api.close();
});

function loadQueueNode(config: Record<string, unknown>, key = API_KEY): Promise<LoadedFlow> {
  const flow: FlowNode[] = [
    { id: 's1', type: 'crateflow-server', url: api.url },
    { id: 'q1', type: 'crateflow-queue', server: 's1', wires: [['out']], ...config },
    { id: 'out', type: 'helper' },
  ];
  return helper.load(['crateflow-server', 'crateflow-queue'], flow, { s1: { apiKey: key } });
}

/** Sends `msg` into the queue node and resolves with what reached its output. */
async function roundTrip(flow: LoadedFlow, msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  const output = nextEvent<Record<string, unknown>>(flow.getNode('out'), 'input');
  flow.getNode('q1').receive(msg);
  return output;
}

/** Sends `msg` and resolves with the error and message the node passed to done(err). */
async function failure(flow: LoadedFlow, msg: Record<string, unknown>): Promise<{ error: Error; msg: Record<string, unknown> }> {
  const reported = nextEvent<SpyCall>(flow.getNode('q1'), 'call:error');
  flow.getNode('q1').receive(msg);
  const call = await reported;
  const [error, failed] = call.args;
  assert.ok(error instanceof Error, `done(err) got ${String(error)}`);
  assert.ok(typeof failed === 'object' && failed !== null);
  return { error, msg: { ...failed } };
}

describe('crateflow-queue', () => {
  it('approves one item by msg.payload.id through POST /api/v1/queue/{id}/approve with the bearer key', async () => {
    const item = api.seed('Portishead', 'Dummy');
    const flow = await loadQueueNode({ operation: 'approve' });
    const msg = await roundTrip(flow, { payload: { id: item.id } });
    assert.equal(msg.statusCode, 200);
    assert.deepEqual(msg.payload, { item: { ...item, status: 'approved' } });
    const request = api.received.at(-1);
    assert.equal(`${request?.method} ${request?.path}`, `POST /api/v1/queue/${item.id}/approve`);
    assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
  });

  it('approves the item named in a queue_added webhook payload', async () => {
    const item = api.seed('Massive Attack', 'Mezzanine');
    const flow = await loadQueueNode({ operation: 'approve' });
    const msg = await roundTrip(flow, { payload: { event: 'queue_added', timestamp: new Date().toISOString(), data: { id: item.id, artist: item.artist } } });
    assert.equal(msg.statusCode, 200);
    assert.equal(api.items.get(item.id)?.status, 'approved');
  });

  it('rejects several items by msg.payload.ids through the bulk route', async () => {
    const first = api.seed('Low', 'Things We Lost in the Fire');
    const second = api.seed('Low', 'Double Negative');
    const flow = await loadQueueNode({ operation: 'reject' });
    const msg = await roundTrip(flow, { payload: { ids: [first.id, second.id] } });
    assert.deepEqual(msg.payload, { success: true, count: 2, message: '2 item(s) rejected' });
    const request = api.received.at(-1);
    assert.equal(`${request?.method} ${request?.path}`, 'POST /api/v1/queue/reject');
    assert.deepEqual(JSON.parse(request?.text ?? ''), { ids: [first.id, second.id] });
  });

  it('sends mbid and mbids as the bulk route\'s mbids list', async () => {
    const mbid = '5b11f4ce-a62d-471e-81fc-a69a8278c7da';
    api.seed('Nirvana', 'Nevermind', mbid);
    const flow = await loadQueueNode({ operation: 'approve' });
    const msg = await roundTrip(flow, { payload: { mbid } });
    assert.equal(Reflect.get(Object(msg.payload), 'count'), 1);
    assert.deepEqual(JSON.parse(api.received.at(-1)?.text ?? ''), { mbids: [mbid] });
    await roundTrip(flow, { payload: { mbids: [mbid, mbid.replace('5b', '6c')] } });
    assert.deepEqual(JSON.parse(api.received.at(-1)?.text ?? ''), { mbids: [mbid, mbid.replace('5b', '6c')] });
  });

  it('approves every pending item with msg.payload.all', async () => {
    api.seed('Can', 'Tago Mago');
    api.seed('Can', 'Ege Bamyasi');
    const flow = await loadQueueNode({ operation: 'approve' });
    const msg = await roundTrip(flow, { payload: { all: true } });
    assert.equal(Reflect.get(Object(msg.payload), 'count'), 2);
    assert.deepEqual(JSON.parse(api.received.at(-1)?.text ?? ''), { all: true });
  });

  it('takes the operation from msg.operation over the node config', async () => {
    const item = api.seed('Björk', 'Homogenic');
    const flow = await loadQueueNode({ operation: 'approve' });
    await roundTrip(flow, { operation: 'reject', payload: item.id });
    assert.equal(api.items.get(item.id)?.status, 'rejected');
  });

  it('lists pending items with the configured page size, which msg.payload overrides', async () => {
    api.seed('Air', 'Moon Safari');
    api.seed('Daft Punk', 'Discovery');
    const flow = await loadQueueNode({ operation: 'list', limit: 1 });
    const msg = await roundTrip(flow, { payload: '' });
    assert.equal(Reflect.get(Object(msg.payload), 'total'), 2);
    assert.equal(api.received.at(-1)?.query.get('limit'), '1');
    await roundTrip(flow, { payload: { limit: 25, sort: 'artist', q: 'air' } });
    const query = api.received.at(-1)?.query;
    assert.deepEqual([query?.get('limit'), query?.get('sort'), query?.get('q')], ['25', 'artist', 'air']);
  });

  it('adds a candidate with POST /api/v1/queue and passes on the created items', async () => {
    const flow = await loadQueueNode({ operation: 'add' });
    const status = lastStatusAfter(flow, 2);
    const msg = await roundTrip(flow, { payload: { artist: 'Radiohead', album: 'OK Computer' } });
    assert.equal(msg.statusCode, 201);
    assert.deepEqual(JSON.parse(api.received.at(-1)?.text ?? ''), { artist: 'Radiohead', album: 'OK Computer' });
    assert.equal([...api.items.values()][0]?.album, 'OK Computer');
    assert.deepEqual((await status).args[0], { fill: 'green', shape: 'dot', text: 'crateflow-queue.status.added' });
  });

  it('reports a 409 to done(err) with msg.statusCode, shows it in the status and sends nothing', async () => {
    const item = api.seed('Sade', 'Diamond Life');
    api.items.set(item.id, { ...item, status: 'approved' });
    const flow = await loadQueueNode({ operation: 'approve' });
    let sent = false;
    flow.getNode('out').on('input', () => (sent = true));
    const status = lastStatusAfter(flow, 2);
    const { error, msg } = await failure(flow, { payload: { id: item.id } });
    assert.equal(msg.statusCode, 409);
    assert.match(error.message, /409.*is approved/);
    assert.deepEqual((await status).args[0], { fill: 'red', shape: 'ring', text: '409' });
    assert.equal(sent, false);
  });

  it('reports an unknown id as 404', async () => {
    const flow = await loadQueueNode({ operation: 'reject' });
    const { msg } = await failure(flow, { payload: { id: 'no-such-item' } });
    assert.equal(msg.statusCode, 404);
  });

  it('reports a wrong API key as 401', async () => {
    const flow = await loadQueueNode({ operation: 'list' }, 'wrong-key');
    const { error, msg } = await failure(flow, { payload: {} });
    assert.equal(msg.statusCode, 401);
    assert.match(error.message, /401/);
  });

  it('refuses an approve that names no item without calling the API', async () => {
    const flow = await loadQueueNode({ operation: 'approve' });
    const { error, msg } = await failure(flow, { payload: { artist: 'nobody' } });
    assert.match(error.message, /approve needs msg\.payload\.id, ids, mbid or mbids/);
    assert.equal(msg.statusCode, undefined);
    assert.equal(api.received.length, 0);
  });

  it('refuses an unknown msg.operation', async () => {
    const flow = await loadQueueNode({ operation: 'approve' });
    const { error } = await failure(flow, { operation: 'delete', payload: { id: 'q1' } });
    assert.match(error.message, /msg\.operation must be list, add, approve or reject/);
  });

  it('reports an unreachable server as an error without a status code', async () => {
    const flow = await loadQueueNode({ operation: 'list' });
    await api.close();
    const { error, msg } = await failure(flow, { payload: {} });
    assert.match(error.message, /GET \/api\/v1\/queue\/pending failed: .*ECONNREFUSED/);
    assert.equal(msg.statusCode, undefined);
  });
});

/** Resolves with the `n`th status call from now (the first is the "running" status). */
function lastStatusAfter(flow: LoadedFlow, n: number): Promise<SpyCall> {
  return new Promise((resolve) => {
    let seen = 0;
    const onStatus = (call: SpyCall) => {
      seen += 1;
      if (seen < n) return;
      flow.getNode('q1').off('call:status', onStatus);
      resolve(call);
    };
    flow.getNode('q1').on('call:status', onStatus);
  });
}
