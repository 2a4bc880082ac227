import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The third-party source the tests load with `use:`, by path. */
export const SCRIPTED_SOURCE = fileURLToPath(new URL('../../fixtures/plugins/scripted-source.ts', import.meta.url));

export interface SourceScript {
  candidates?: unknown[];
  batch_size?: number;
  /** The run waits at the gate before each batch from this index on (default 0). */
  hold_from?: number;
  fail?: string;
  retry_after_ms?: number;
  /** Passed to run.explain(): why the run proposes nothing. */
  explain?: string;
}

/** The files one scripted source is steered through, in a temp folder of its own. */
export interface SourceFiles {
  dir: string;
  /** The plugin keys of a `sources:` entry for it. */
  config: { script_file: string; gate_file: string; calls_file: string };
  script(script: SourceScript): Promise<void>;
  closeGate(): Promise<void>;
  openGate(): Promise<void>;
  /** What the source recorded, one entry per start and batch. */
  calls(): Promise<Record<string, unknown>[]>;
  remove(): Promise<void>;
}

export async function sourceFiles(script: SourceScript = {}): Promise<SourceFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-source-'));
  const config = { script_file: join(dir, 'script.json'), gate_file: join(dir, 'gate'), calls_file: join(dir, 'calls.jsonl') };
  const files: SourceFiles = {
    dir,
    config,
    script: (next) => writeFile(config.script_file, JSON.stringify(next)),
    closeGate: () => writeFile(config.gate_file, ''),
    openGate: () => rm(config.gate_file, { force: true }),
    calls: async () => {
      const text = await readFile(config.calls_file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return '';
        throw err;
      });
      return text.split('\n').filter(Boolean).map((line): Record<string, unknown> => JSON.parse(line));
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  await files.script(script);
  return files;
}

/** A valid candidate of the `source` kind, with one reason; `digit` makes its release group mbid. */
export function candidate(artist: string, album: string, digit: string, score = 0.5): Record<string, unknown> {
  return {
    artist,
    album,
    type: 'album',
    mbid: `${digit.repeat(8)}-${digit.repeat(4)}-4${digit.repeat(3)}-8${digit.repeat(3)}-${digit.repeat(12)}`,
    year: 2001,
    score,
    reasons: [{ kind: 'similar-artists', text: `similar to artists like ${artist}`, refs: [{ type: 'artist', name: artist }] }],
  };
}
