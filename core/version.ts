import { readFileSync } from 'node:fs';

/** The server's version, from core/package.json. */
export function readVersion(): string {
  const text = readFileSync(new URL('./package.json', import.meta.url), 'utf8');
  const parsed: unknown = JSON.parse(text);
  return parsed && typeof parsed === 'object' && 'version' in parsed && typeof parsed.version === 'string' ? parsed.version : '0.0.0';
}
