/** What a command line asks for. */
export type CliRequest =
  | { readonly command: 'serve'; readonly configPath?: string }
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'hash-password' };

/** A command line that cannot be followed: the message names what is wrong (exit status 2, as usage errors are). */
export interface CliMistake {
  readonly mistake: string;
}

const OPTIONS = ['--config', '--help', '--version'] as const;

/**
 * Reads `crateflow [--config PATH] | --help | --version | hash-password`. Anything else is a mistake, never a
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
  let configPath: string | undefined;
  let asked: CliRequest | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') asked ??= { command: 'help' };
    else if (arg === '--version' || arg === '-v') asked ??= { command: 'version' };
    else if (arg === '--config' || arg.startsWith('--config=')) {
      const inline = arg.startsWith('--config=');
      const value = inline ? arg.slice('--config='.length) : argv[i + 1];
      if (!inline) i++;
      // `--config --help` is a forgotten value, not a file named "--help".
      if (value === undefined || value === '' || (!inline && value.startsWith('-'))) return { mistake: 'option --config needs a value: --config PATH' };
      if (configPath !== undefined) return { mistake: 'option --config is given twice' };
      configPath = value;
    } else if (arg.startsWith('-')) {
      const name = arg.split('=')[0] ?? arg;
      const near = closestOption(name);
      return { mistake: `unknown option ${name}${near ? ` (did you mean ${near}?)` : ''}` };
    } else {
      return { mistake: `unexpected argument "${arg}": crateflow takes options only (or the command hash-password)${arg.endsWith('.yaml') || arg.endsWith('.yml') ? `; for a config file write --config ${arg}` : ''}` };
    }
  }
  return asked ?? { command: 'serve', ...(configPath === undefined ? {} : { configPath }) };
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
