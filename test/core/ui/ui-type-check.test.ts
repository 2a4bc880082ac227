import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const UI_CONFIG = `${ROOT}core/ui/tsconfig.json`;
const QUEUE_ITEM_SCHEMA = `${ROOT}core/queue/queue-item.schema.ts`;
const UI_ASSETS = `${ROOT}core/ui/public/assets/`;

function parseUiConfig(): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(UI_CONFIG, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
  });
  assert.ok(parsed, `${UI_CONFIG} could not be read`);
  return parsed;
}

/** The UI's type check in-process, as `tsc -p core/ui/tsconfig.json` runs it, with some files' text replaced. */
function checkUi(config: ts.ParsedCommandLine, replaced: ReadonlyMap<string, string>, oldProgram?: ts.Program) {
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => replaced.get(fileName) ?? readFile(fileName);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host, ...(oldProgram ? { oldProgram } : {}) });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file?.fileName ?? '(global)',
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
  return { program, problems };
}

describe('the UI type check (core/ui/tsconfig.json)', () => {
  it('is part of npm run typecheck', async () => {
    const scripts = (JSON.parse(await readFile(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.match(scripts.typecheck ?? '', /tsc --noEmit -p core\/ui\/tsconfig\.json/);
  });

  it('passes on the tree as it is, and fails in the page that reads a field the server renamed', () => {
    const config = parseUiConfig();
    assert.ok(config.fileNames.some((f) => f.endsWith('/assets/pages/queue.js')), 'the UI config covers the pages');

    const unchanged = checkUi(config, new Map());
    assert.deepEqual(unchanged.problems, []);

    // The queue page shows when an item was added; rename that field where the server declares it.
    const schema = ts.sys.readFile(QUEUE_ITEM_SCHEMA) ?? '';
    const field = '    added_at: Type.String(),\n';
    assert.equal(schema.split(field).length, 2, `${QUEUE_ITEM_SCHEMA} declares QueueItem.added_at once`);
    const renamed = checkUi(config, new Map([[QUEUE_ITEM_SCHEMA, schema.replace(field, '    queued_at: Type.String(),\n')]]), unchanged.program);

    const inUi = renamed.problems.filter((p) => p.file.startsWith(UI_ASSETS));
    assert.ok(
      inUi.some((p) => p.file.endsWith('/pages/queue.js') && p.message.includes("'added_at'")),
      `expected an error in pages/queue.js naming added_at, got ${JSON.stringify(renamed.problems, null, 2)}`,
    );
  });
});
