import { isJsonObject } from './is-json-object.js';

/**
 * Renders a `subsonic-response` body as Subsonic XML (the format used when `f` is missing): scalar members
 * become attributes, objects and arrays of objects become child elements, arrays of scalars become repeated
 * text elements. `undefined` members are left out, as in the JSON form.
 */
export function renderSubsonicXml(response: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element('subsonic-response', { xmlns: 'http://subsonic.org/restapi', ...response })}`;
}

function element(name: string, value: Record<string, unknown>): string {
  const attributes: string[] = [];
  const children: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || member === null) continue;
    if (Array.isArray(member)) {
      for (const item of member) children.push(isJsonObject(item) ? element(key, item) : `<${key}>${escapeXml(String(item))}</${key}>`);
    } else if (isJsonObject(member)) {
      children.push(element(key, member));
    } else {
      attributes.push(` ${key}="${escapeXml(String(member))}"`);
    }
  }
  const open = `<${name}${attributes.join('')}`;
  return children.length === 0 ? `${open}></${name}>` : `${open}>${children.join('')}</${name}>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? '&apos;');
}
