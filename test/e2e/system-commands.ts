import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface SystemCommand {
  command: string;
  /** The Debian package that provides it. */
  aptPackage: string;
}

const SEARCH = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/bin', '/usr/local/sbin'];

/** The absolute path of a command: PATH first, then the sbin folders a non-root PATH often lacks. */
export function findCommand(command: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter((d) => d.length > 0), ...SEARCH];
  return dirs.map((dir) => join(dir, command)).find((path) => existsSync(path));
}

/**
 * Makes sure the commands exist, installing their Debian packages with apt-get when they do not (CI runs as root
 * on a fresh machine). Returns each command's absolute path. Fails with the apt-get line to run otherwise.
 */
export function ensureCommands(wanted: readonly SystemCommand[]): Record<string, string> {
  const missing = wanted.filter((w) => !findCommand(w.command));
  if (missing.length > 0) {
    const packages = missing.map((m) => m.aptPackage);
    const hint = `apt-get update && apt-get install -y ${packages.join(' ')}`;
    if (process.getuid?.() !== 0 || !findCommand('apt-get')) {
      throw new Error(`${missing.map((m) => m.command).join(', ')} missing and this test cannot install it (not root, or no apt-get): run ${hint}`);
    }
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
      const result = spawnSync('apt-get', args, { env, encoding: 'utf8', timeout: 600_000 });
      if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr.slice(-2000)}`);
    }
  }
  const paths: Record<string, string> = {};
  for (const w of wanted) {
    const path = findCommand(w.command);
    if (!path) throw new Error(`${w.command} is still missing after installing ${w.aptPackage}`);
    paths[w.command] = path;
  }
  return paths;
}
