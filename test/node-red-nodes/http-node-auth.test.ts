import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { packageDir, requireFromPackage } from './build-node-package.js';
import { readExample, withEnv } from './example-flow.js';
import { crateflowEvent, signWebhook } from './sign-webhook.js';
import { prepareNodeRed, type StartedNodeRed } from './start-node-red.js';

const SECRET = 'node-red-webhook-secret';
const CHAT_SERVER = 'c0a1b2c3d4e5f602';
const PASSWORD = 'a chat password: with a colon';
const HASH_PLACEHOLDER = "'PASTE THE OUTPUT OF node-red admin hash-pw'";
const nodeRedDir = dirname(requireFromPackage.resolve('node-red/package.json'));

let workDir: string;
let nodeRed: StartedNodeRed;
let chat: FakeWebhookReceiver;

/** The `httpNodeAuth` block of the package README, as a user pastes it into settings.js. */
async function readmeSnippet(): Promise<string> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  const block = /```js\n( {4}httpNodeAuth:[\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has a ```js block with httpNodeAuth');
  assert.ok(block.includes(HASH_PLACEHOLDER), 'the block has the hash placeholder');
  return block;
}

/** What `node-red admin hash-pw` prints for a password typed at its prompt: `Password: <bcrypt hash>`. */
function hashPassword(password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(nodeRedDir, 'red.js'), 'admin', 'hash-pw'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let printed = '';
    child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const hash = /\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}/.exec(printed)?.[0];
      if (code === 0 && hash) resolve(hash);
      else reject(new Error(`node-red admin hash-pw exited ${code} printing ${JSON.stringify(printed)}`));
    });
    child.stdin.end(`${password}\n`);
  });
}

function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-auth-'));
  chat = await startFakeWebhookReceiver();
  const snippet = (await readmeSnippet()).replace(HASH_PLACEHOLDER, JSON.stringify(await hashPassword(PASSWORD)));
  // Node-RED's shipped settings.js with the README's block pasted into its module.exports.
  const settingsFile = join(workDir, 'settings.js');
  await writeFile(settingsFile, `module.exports = {\n    ...require(${JSON.stringify(join(nodeRedDir, 'settings.js'))}),\n${snippet}};\n`);
  nodeRed = await prepareNodeRed(join(workDir, 'node-red'), { settingsFile });
  const env = { CRATEFLOW_URL: 'http://127.0.0.1:9', NODE_RED_PUBLIC_URL: nodeRed.url, CHAT_URL: chat.url };
  await nodeRed.start(withEnv(await readExample('chat-bot-approval.json'), env), { [CHAT_SERVER]: { apiKey: 'unused-key', webhookSecret: SECRET } });
});

after(async () => {
  await nodeRed?.close();
  await chat?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('the README\'s httpNodeAuth in Node-RED\'s settings.js, with the chat example', () => {
  it('asks for the password at the decision endpoint, whatever the method or the spelling of its path', async () => {
    const decision = `${nodeRed.url}/crateflow/decision?action=approve&id=q_1`;
    const page = await fetch(decision);
    assert.equal(page.status, 401, nodeRed.output());
    assert.match(page.headers.get('www-authenticate') ?? '', /^Basic /);
    assert.equal((await fetch(decision, { method: 'POST' })).status, 401);
    // Node-RED's routes match regardless of case and a trailing slash (express defaults).
    assert.equal((await fetch(`${nodeRed.url}/CRATEFLOW/Decision/?action=approve&id=q_1`, { method: 'POST' })).status, 401);
    assert.equal((await fetch(decision, { headers: basic('chat', 'wrong password') })).status, 401);
    assert.equal((await fetch(decision, { headers: basic('someone', PASSWORD) })).status, 401);
  });

  it('shows the confirm page to a browser that sends the user and password', async () => {
    const page = await fetch(`${nodeRed.url}/crateflow/decision?action=approve&id=q_1&artist=Low&album=Trust`, { headers: basic('chat', PASSWORD) });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<p>approve Low — Trust\?<\/p>/);
  });

  it('lets Crateflow\'s signed deliveries through without a password, and the flow posts to the chat', async () => {
    const delivery = signWebhook(SECRET, crateflowEvent('queue_approved', { artist: 'Low', album: 'Trust', in_library: false }));
    const response = await fetch(`${nodeRed.url}/crateflow/chat`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    assert.equal(response.status, 200, await response.clone().text());
    const [message] = await chat.waitFor(1, 60_000);
    assert.ok(message);
    assert.equal(Reflect.get(Object(JSON.parse(message.text)), 'text'), 'Approved: Low — Trust. Crateflow will download it.');
  });

  it('still refuses an unsigned delivery at the open webhook path', async () => {
    const response = await fetch(`${nodeRed.url}/crateflow/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(response.status, 401);
  });
});
