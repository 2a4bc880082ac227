import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import type { TestContext } from 'node:test';
import { DefaultAuthenticator } from '../../core/auth/default-authenticator.js';
import { OutboundAddressPolicy } from '../../core/net/outbound-address-policy.js';
import { ConfigError } from '../../core/config/config-error.js';
import { loadConfig } from '../../core/config/load-config.js';
import { checkPlugins } from '../../core/plugins/plugin-host.js';
import { planPluginMounts, slotChoice } from '../../core/plugins/plugin-mounts.js';
import type { PathProblem } from '../../core/schema/format-schema-errors.js';
import { REPO_ROOT, TS_NODE_ARGS } from '../helpers/run-service.js';
import { mutateConfig } from './config-mutations.js';
import { SERVICE_CHILD, freePort } from './service-process.js';
import { ms, percentile } from './statistics.js';

// Config fuzzing (issue 10, part 3): random mutations of config.yaml.example must either give a running service
// or stop startup with `path: message` lines, never a stack trace and never an error without a key path. Most
// mutations are judged in-process through the very steps core/main.ts runs before it builds anything
// (loadConfig, then the plugin and auth checks); a sample also runs as a real process, valid ones included.

const ENV = { CRATEFLOW_FUZZ_SET: 'a-value-from-the-environment-0123456789' };
const STACK = /\n\s+at .+[:(]\d+:\d+|\bat (?:async )?[\w.<>]+ \(/;
const PROBLEM_LINE = /^ {2}- \S.*?: .+$/;

export interface FuzzOptions {
  random: () => number;
  inProcess: number;
  processes: number;
  t: TestContext;
}

/** Problems that do not name a key path and a rule, or carry a stack trace. (Control characters in them are
 * printed escaped by ConfigError; the printed lines are checked separately.) */
function badProblems(problems: readonly PathProblem[]): string[] {
  return problems
    .filter((p) => !p.path || !p.message || STACK.test(p.message))
    .map((p) => `${JSON.stringify(p.path)}: ${JSON.stringify(p.message).slice(0, 200)}`);
}

/** The steps of core/main.ts before anything is built: every problem the configuration has. */
async function judge(path: string): Promise<PathProblem[]> {
  const loaded = await loadConfig({ path, explicit: true }, ENV);
  if (loaded.problems.length > 0) {
    // main.ts reports plugin problems too when it can; a failing check there is swallowed the same way.
    const plugins = await (async () => checkPlugins(planPluginMounts(loaded.config), slotChoice(loaded.config), dirname(path)))().catch(() => undefined);
    return [...loaded.problems, ...(plugins?.problems ?? [])];
  }
  const plugins = await checkPlugins(planPluginMounts(loaded.config), slotChoice(loaded.config), dirname(path));
  return [...DefaultAuthenticator.check(loaded.config.ui.auth), ...OutboundAddressPolicy.check(loaded.config.webhooks_policy), ...OutboundAddressPolicy.check(loaded.config.metadata_policy, 'metadata_policy'), ...plugins.problems];
}

export async function runConfigFuzz(options: FuzzOptions): Promise<{ report: [string, string][]; failures: string[] }> {
  const { random } = options;
  const example = await readFile(join(REPO_ROOT, 'config.yaml.example'), 'utf8');
  const root = await mkdtemp(join(tmpdir(), 'crateflow-config-fuzz-'));
  options.t.after(() => rm(root, { recursive: true, force: true }));
  const failures: string[] = [];
  const verdicts = { valid: 0, invalid: 0 };
  const problemCounts: number[] = [];
  const samples: { text: string; ops: string[]; valid: boolean }[] = [];
  const firstPaths = new Map<string, number>();

  for (let i = 0; i < options.inProcess; i++) {
    const { text, ops } = mutateConfig(example, random);
    const path = join(root, `in-process-${i}`, 'config.yaml');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    try {
      const problems = await judge(path);
      const bad = badProblems(problems);
      if (bad.length > 0) failures.push(`mutation ${i} (${ops.join('; ')}): unclear problems ${bad.join(' | ')}`);
      const message = problems.length > 0 ? new ConfigError(path, problems).message : '';
      const lines = message.split('\n').slice(1);
      if (lines.some((line) => !PROBLEM_LINE.test(line))) failures.push(`mutation ${i} (${ops.join('; ')}): a line that is not "  - path: message": ${JSON.stringify(lines.find((l) => !PROBLEM_LINE.test(l)))}`);
      verdicts[problems.length > 0 ? 'invalid' : 'valid']++;
      if (problems.length > 0) problemCounts.push(problems.length);
      for (const problem of problems.slice(0, 1)) {
        const key = /^line \d+/.test(problem.path) ? 'YAML syntax' : (problem.path.split(/[.[ ]/)[0] ?? '');
        firstPaths.set(key, (firstPaths.get(key) ?? 0) + 1);
      }
      samples.push({ text, ops, valid: problems.length === 0 });
    } catch (err: unknown) {
      const where = err instanceof Error ? (err.stack ?? '').split('\n').slice(1, 4).map((l) => l.trim()).join(' < ') : '';
      failures.push(`mutation ${i} (${ops.join('; ')}): the checks threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)} (${where})\n${text.slice(0, 1500)}`);
    }
  }

  // A sample as real processes: as many valid mutations as we have (up to half), the rest invalid.
  const valid = samples.filter((s) => s.valid);
  const invalid = samples.filter((s) => !s.valid);
  const chosen = [...valid.slice(0, Math.ceil(options.processes / 2)), ...invalid.slice(0, options.processes)].slice(0, options.processes);
  const outcomes = { started: 0, refused: 0 };
  const startTimes: number[] = [];
  for (const [i, sample] of chosen.entries()) {
    const dir = join(root, `process-${i}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.yaml'), sample.text);
    const result = await runChild(dir, await freePort());
    startTimes.push(result.ms);
    const label = `process ${i} (${sample.ops.join('; ')})`;
    if (result.started) {
      outcomes.started++;
      if (!sample.valid) failures.push(`${label}: started although the checks found problems`);
      if (result.stopCode !== 0) failures.push(`${label}: SIGTERM exit ${result.stopCode}`);
    } else {
      outcomes.refused++;
      const lines = result.stderr.trimEnd().split('\n');
      // Whether a host name resolves or a port is free is a fact of the machine, not of the file: the checks cannot
      // know it, and the service says so in one line naming the address.
      const cannotListen = result.code === 1 && lines.length === 1 && /^Crateflow could not listen on \S+: \S/.test(lines[0] ?? '') && sample.ops.some((op) => /^server\.(host|port)\b/.test(op));
      if (cannotListen) continue;
      const clear = result.code === 1 && /^Invalid configuration in .+:$/.test(lines[0] ?? '') && lines.slice(1).every((l) => PROBLEM_LINE.test(l)) && !STACK.test(result.stderr);
      if (!clear) failures.push(`${label}: exit ${result.code}, stderr not "path: message" lines:\n${result.stderr.slice(0, 600)}`);
      if (sample.valid) failures.push(`${label}: refused to start although the checks found nothing:\n${result.stderr.slice(0, 600)}`);
    }
  }

  const report: [string, string][] = [
    ['in-process mutations', `${options.inProcess}: ${verdicts.valid} valid, ${verdicts.invalid} refused (problems per refusal: median ${percentile(problemCounts, 50)}, max ${Math.max(0, ...problemCounts)})`],
    ['first problem by section', [...firstPaths.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k || '(root)'} ${n}`).join(', ')],
    ['real processes', `${chosen.length}: ${outcomes.started} started and stopped on SIGTERM, ${outcomes.refused} exited 1 with "path: message" lines (median ${ms(percentile(startTimes, 50))} each)`],
    ['unclear outcomes', failures.length === 0 ? 'none' : `${failures.length}: ${failures.slice(0, 3).join(' | ')}`],
  ];
  return { report, failures };
}

/** Runs the real service on a config; readiness is GET /health, then SIGTERM. */
async function runChild(dir: string, port: number): Promise<{ started: boolean; code: number | null; stopCode: number | null; stderr: string; ms: number }> {
  const begin = Date.now();
  // Run from the config's folder (its relative paths land there), so tsx is named by its resolved location.
  const args = TS_NODE_ARGS.map((arg) => (arg === 'tsx' ? import.meta.resolve('tsx') : arg));
  const child = spawn(process.execPath, [...args, SERVICE_CHILD, '--config', join(dir, 'config.yaml')], {
    cwd: dir,
    env: { ...process.env, ...ENV, CRATEFLOW_CONFIG: '', PORT: String(port), TSX_TSCONFIG_PATH: join(REPO_ROOT, 'tsconfig.json') },
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 30_000;
  while (!gone && Date.now() < deadline) {
    // The config may have moved the host; PORT fixes the port. Loopback answers for 127.0.0.1, 0.0.0.0 and ::.
    const ok = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.status === 200,
      () => false, // not listening (yet): poll again until it listens, exits, or the deadline passes
    );
    if (ok) {
      child.kill('SIGTERM');
      const stopCode = await exited;
      return { started: true, code: null, stopCode, stderr, ms: Date.now() - begin };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!gone) child.kill('SIGKILL');
  const code = await exited;
  return { started: false, code, stopCode: null, stderr: gone ? stderr : `${stderr}\n(neither listening nor exited within 30 s)`, ms: Date.now() - begin };
}
