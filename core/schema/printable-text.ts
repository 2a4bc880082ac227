import { Type, type TString } from 'typebox';

/**
 * The `pattern` of a name or other one-line text a client sends: no control characters (U+0000–U+001F,
 * U+007F–U+009F: NUL, tab, line breaks, escape). A name holds none of them, and one stored would travel on into
 * file names, search queries and notifications. Invisible format characters (a zero-width space) are accepted, and
 * ignored where names are compared (the sdk's normalizeName).
 */
export const PRINTABLE_TEXT = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g;

/** A string schema for a one-line name: 1 to `maxLength` characters, none of them a control character. */
export function printableText(description: string, maxLength = 500): TString {
  return Type.String({ minLength: 1, maxLength, pattern: PRINTABLE_TEXT, description });
}

/**
 * `text` with its control characters taken out (a tab or line break becomes a space), for names that come from a
 * plugin (a source's candidates, a library's albums): the plugin's one odd tag should not fail a whole run, and
 * the name without them is the name a person reads.
 *
 * @example
 * withoutControlCharacters('Low\u0000') // 'Low'
 */
export function withoutControlCharacters(text: string): string {
  if (!CONTROL_CHARACTER.test(text)) return text;
  return text.replace(/[\t\n\v\f\r\u0085]+/g, ' ').replace(CONTROL_CHARACTERS, '').trim();
}
