// How much of a long path and query stays visible, to tell two webhooks on one host apart.
const HINT_CHARS = 4;
const HINT_MIN_LENGTH = 16;

/**
 * What viewers see of a webhook URL: scheme, host and port, and a hint. Receivers put their secrets in URLs
 * (Home Assistant's webhook id in the path, `?token=` for n8n and chat bots, `user:pass@`), so the path and
 * query are reduced to `/…` and their last few characters.
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return '(not a valid URL)'; // the config schema checked the form; never echo it raw
  const parsed = new URL(url);
  const rest = `${parsed.pathname}${parsed.search}`;
  const origin = `${parsed.protocol}//${parsed.host}`;
  if (rest === '/') return `${origin}/`;
  return `${origin}/…${rest.length >= HINT_MIN_LENGTH ? rest.slice(-HINT_CHARS) : ''}`;
}

/**
 * An error text with the target's URL (whole, or origin and path as network errors quote it) replaced by its
 * redacted form: the delivery log is readable by viewers, and a token in the path must not reach them that way.
 */
export function scrubTargetUrl(text: string, url: string): string {
  if (!URL.canParse(url)) return text;
  const parsed = new URL(url);
  const forms = [parsed.href, url, `${parsed.origin}${parsed.pathname}`].filter((form) => form.length > `${parsed.origin}/`.length);
  return forms.reduce((scrubbed, form) => scrubbed.split(form).join(redactUrl(url)), text);
}
