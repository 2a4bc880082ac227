import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium: Playwright drives it through `playwright-core`, which downloads no browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox', // tests run as root in CI containers, where the sandbox cannot start
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Installs Debian's `chromium` when it is missing (the machines run as root and reach Debian's mirrors),
 * so `npm test` works on a fresh machine; CI should still list it in .ci/run's apt line to save the time.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  } catch (err: unknown) {
    throw new Error(`the browser tests need ${CHROMIUM}; installing Debian's chromium failed (run: apt-get install chromium)`, { cause: err });
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: ensureChromium(), headless: true, args: FLAGS, timeout: 60_000 });
}
