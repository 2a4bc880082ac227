import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { api } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// Issue point 5: the OpenAPI document as clients read it. A real validator reads it from a live server, a real
// generator turns it into TypeScript types, and a small program written against those types (openapi-fetch) is
// type-checked by tsc and then run against the same server. The types are generated into a temp dir on every run
// rather than committed: a committed copy would go stale with every route another change adds, and what matters is
// that the document the server serves today yields a client that compiles and works.

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const PROGRAM = join(REPO, 'test/fixtures/openapi-client/use-crateflow.ts');
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');
const APPROVER_KEY = 'openapi-client-approver-key-0123456789';

/** The same strictness a user's project would have; the generated file is checked as source, not skipped as a library. */
const CLIENT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2023', lib: ['ES2023', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext',
    strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: true, types: ['node'],
  },
  files: ['use-crateflow.ts', 'crateflow-api.ts'],
};

/** What the fixture program exports; read back from the module the test imports. */
interface ClientRun {
  health: string;
  added: number;
  pendingTotal: number;
  firstArtist: string;
  approvedStatus: string;
  secondApproval: { status: number; problemType: string };
}

describe('GET /api/v1/openapi.json read by generated clients', () => {
  let app: StartedApp;
  let dir: string;
  before(async () => {
    app = await startApp({
      config: { ui: { auth: { enabled: true, type: 'basic', username: 'admin', password: 'not used by this test', api_keys: [{ name: 'client', key: APPROVER_KEY, role: 'approver' }] } } },
    });
    dir = await mkdtemp(join(tmpdir(), 'crateflow-openapi-client-'));
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes swagger-parser validation, generates types with openapi-typescript, and a strict client built on them runs against the server', async () => {
    const documentUrl = `${app.baseUrl}/api/v1/openapi.json`;
    // swagger-parser downloads the document itself (from loopback, which it refuses unless told) and checks it
    // against the OpenAPI 3.1 schema.
    const validated = await SwaggerParser.validate(documentUrl, { resolve: { http: { safeUrlResolver: false } } });
    assert.equal('openapi' in validated ? validated.openapi : undefined, '3.1.0');

    const text = await (await fetch(documentUrl)).text();
    // openapi-typescript treats a property with a `default` as always present, which holds for answers only: a
    // request may leave it out (the document does not list it as required there), so the option is turned off.
    const types = astToString(await openapiTS(text, { defaultNonNullable: false }));
    assert.match(types, /"\/api\/v1\/queue\/pending"/);
    assert.match(types, /"\/health"/);

    await writeFile(join(dir, 'crateflow-api.ts'), types);
    await copyFile(PROGRAM, join(dir, 'use-crateflow.ts'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(CLIENT_TSCONFIG));
    // openapi-fetch, typescript and @types/node come from the repository, as an npm install would provide them.
    await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const tsc = await promisify(execFile)(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
      () => ({ ok: true, output: '' }),
      (err: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
    );
    assert.ok(tsc.ok, `tsc --strict on the client program:\n${tsc.output}`);

    const program: { useCrateflow(baseUrl: string, apiKey: string): Promise<ClientRun> } = await import(pathToFileURL(join(dir, 'use-crateflow.ts')).href);
    const run = await program.useCrateflow(app.baseUrl, APPROVER_KEY);
    assert.equal(run.health, 'ok');
    assert.equal(run.added, 2);
    assert.equal(run.pendingTotal, 2);
    // Sorted by artist in the default order for names (A–Z), which the client left to the server.
    assert.equal(run.firstArtist, 'Broadcast');
    assert.equal(run.approvedStatus, 'approved');
    assert.equal(run.secondApproval.status, 409);
    assert.match(run.secondApproval.problemType, /conflict$/);
    // The approval the client made is the server's state, not only the client's reading of an answer.
    const wishlist = await api<{ items: { artist: string }[] }>(app.baseUrl, 'GET', '/api/v1/wishlist', undefined, { 'x-api-key': APPROVER_KEY });
    assert.deepEqual(wishlist.body.items.map((item) => item.artist), ['Broadcast']);
  });
});
