/** What a command line asks for. */
export type CliRequest =
  | { readonly command: 'serve'; readonly configPath?: string }
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'hash-password' }
  | { readonly command: 'backup'; readonly target: string; readonly configPath?: string };

/** A command line that cannot be followed: the message names what is wrong (exit status 2, as usage errors are). */
export interface CliMistake {
  readonly mistake: string;
}

const OPTIONS = ['--config', '--help', '--version'] as const;

/**
 * Reads `crateflow [--config PATH] | --help | --version | hash-password | backup FILE [--config PATH]`. Anything
 * else is a mistake, never a
 * reason to start a default instance: an option misspelt (`--confg`) would otherwise run with built-in defaults and
 * a data dir the user did not mean, so it is named, with the option it most likely meant.
 */
export function parseArguments(argv: readonly string[]): CliRequest | CliMistake {
  if (argv[0] === 'hash-password') {
    const extra = argv[1];
    if (extra === undefined) return { command: 'hash-password' };
    if (extra === '--help' || extra === '-h') return { command: 'help' };
    return { mistake: `hash-password takes no arguments, got "${extra}" (it reads the password from stdin)` };
  }
  if (argv[0] === 'backup') return parseBackup(argv.slice(1));
  let configPath: string | undefined;
  let asked: CliRequest | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') asked ??= { command: 'help' };
    else if (arg === '--version' || arg === '-v') asked ??= { command: 'version' };
    else if (arg === '--config' || arg.startsWith('--config=')) {
      const config = readConfigOption(argv, i, configPath);
      if ('mistake' in config) return config;
      configPath = config.value;
      i = config.next;
    } else if (arg.startsWith('-')) {
      const name = arg.split('=')[0] ?? arg;
      const near = closestOption(name);
      return { mistake: `unknown option ${name}${near ? ` (did you mean ${near}?)` : ''}` };
    } else {
      return { mistake: `unexpected argument "${arg}": crateflow takes options only (or the commands hash-password and backup)${arg.endsWith('.yaml') || arg.endsWith('.yml') ? `; for a config file write --config ${arg}` : ''}` };
    }
  }
  return asked ?? { command: 'serve', ...(configPath === undefined ? {} : { configPath }) };
}

/** `backup FILE [--config PATH]`: one target file, and the config that names the data dir. */
function parseBackup(args: readonly string[]): CliRequest | CliMistake {
  let target: string | undefined;
  let configPath: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') return { command: 'help' };
    if (arg === '--config' || arg.startsWith('--config=')) {
      const config = readConfigOption(args, i, configPath);
      if ('mistake' in config) return config;
      configPath = config.value;
      i = config.next;
    } else if (arg.startsWith('-')) {
      return { mistake: `unknown option ${arg.split('=')[0] ?? arg} for backup (it takes a file and --config PATH)` };
    } else if (target !== undefined) {
      return { mistake: `backup takes one file, got "${target}" and "${arg}"` };
    } else {
      target = arg;
    }
  }
  if (target === undefined || target === '') return { mistake: 'backup needs the file to write: backup FILE [--config PATH]' };
  return { command: 'backup', target, ...(configPath === undefined ? {} : { configPath }) };
}

/** `--config PATH` or `--config=PATH` at `argv[i]`: its value and the index of the last argument it used. */
function readConfigOption(argv: readonly string[], i: number, given: string | undefined): { value: string; next: number } | CliMistake {
  const arg = argv[i] ?? '';
  const inline = arg.startsWith('--config=');
  const value = inline ? arg.slice('--config='.length) : argv[i + 1];
  // `--config --help` is a forgotten value, not a file named "--help".
  if (value === undefined || value === '' || (!inline && value.startsWith('-'))) return { mistake: 'option --config needs a value: --config PATH' };
  if (given !== undefined) return { mistake: 'option --config is given twice' };
  return { value, next: inline ? i : i + 1 };
}

/** The known option a misspelling is closest to (at most two edits away, or the same after its dashes), if any. */
function closestOption(given: string): string | undefined {
  const bare = given.replace(/^-+/, '').toLowerCase();
  let best: { option: string; distance: number } | undefined;
  for (const option of OPTIONS) {
    const distance = editDistance(bare, option.slice(2));
    if (distance <= 2 && (!best || distance < best.distance)) best = { option, distance };
  }
  return best?.option;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
