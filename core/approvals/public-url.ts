import type { PathProblem } from '../schema/format-schema-errors.js';
import { parseDuration } from '../config/parse-duration.js';

const MIN_LINK_TTL_MS = 60_000;
const MAX_LINK_TTL_MS = 30 * 24 * 3600_000;

/**
 * `server.public_url` as links are built on it (no trailing slash), or undefined when unset. Checked by
 * {@link checkApprovalsConfig} first.
 */
export function publicUrlOf(configured: string | undefined): string | undefined {
  return configured === undefined ? undefined : new URL(configured).origin;
}

/**
 * What is wrong with `server.public_url` and `approvals.link_ttl`. The address must be the root of an http(s)
 * origin: Crateflow serves its pages at the root, and a link must not carry credentials (`user:pass@`), which every
 * recipient of a notification would see.
 */
export function checkApprovalsConfig(publicUrl: string | undefined, linkTtl: string): PathProblem[] {
  const problems: PathProblem[] = [];
  if (publicUrl !== undefined) {
    const url = URL.canParse(publicUrl) ? new URL(publicUrl) : undefined;
    const wrong = !url
      ? 'is not an absolute URL'
      : url.protocol !== 'https:' && url.protocol !== 'http:'
        ? 'must start with https:// or http://'
        : url.username !== '' || url.password !== ''
          ? 'must not carry a user name or password (every recipient of a link would see them)'
          : url.pathname !== '/' || url.search !== '' || url.hash !== ''
            ? 'must be an origin only, like https://music.example.org (Crateflow serves its pages at the root of its address)'
            : undefined;
    // Never repeated back with a password in it: start-up errors end up in logs.
    const shown = url && (url.username !== '' || url.password !== '') ? '' : ` (got "${publicUrl.slice(0, 200)}")`;
    if (wrong) problems.push({ path: 'server.public_url', message: `${wrong}${shown}` });
  }
  const ttl = parseDuration(linkTtl);
  if (ttl < MIN_LINK_TTL_MS || ttl > MAX_LINK_TTL_MS) problems.push({ path: 'approvals.link_ttl', message: `must be between 1m and 30d (got ${linkTtl})` });
  return problems;
}
