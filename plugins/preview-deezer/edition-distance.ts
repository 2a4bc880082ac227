// Words that label an edition in a trailing bracket group: "(Deluxe Edition)", "[Remastered 2011]", "(Clean)".
// "Edition" and "Version" alone say nothing about which edition it is.
const EDITION_WORDS = /\b(deluxe|remaster(?:ed)?|expanded|anniversary|bonus|reissue|special|collector'?s?|legacy|explicit|clean|edited|mono|stereo|super)\b/gi;
// A remaster or a mono mix has the standard track list; a deluxe or expanded edition adds tracks.
const SAME_TRACKS = new Set(['remaster', 'remastered', 'mono', 'stereo', 'year']);
const TRAILING_GROUP = /\s*[([{]([^()[\]{}]*)[)\]}]\s*$/;

/**
 * How far a Deezer album title's edition is from the wanted title's: 0 for the same edition words (none for
 * none), 1 per label that keeps the standard track list (a remaster, a year), 2 per label that changes it (deluxe,
 * expanded, bonus …), counted both ways. So "Discovery" prefers "Discovery" to "Discovery (Remastered)" to
 * "Discovery (Deluxe Edition)", and "Discovery (Deluxe Edition)" prefers the deluxe one.
 *
 * @example
 * editionDistance('Boxer', 'Boxer (Deluxe Edition)') // 2
 */
export function editionDistance(wanted: string, title: string): number {
  const want = editionLabels(wanted);
  const have = editionLabels(title);
  let distance = 0;
  for (const label of want) if (!have.has(label)) distance += weight(label);
  for (const label of have) if (!want.has(label)) distance += weight(label);
  return distance;
}

function weight(label: string): number {
  return SAME_TRACKS.has(label) ? 1 : 2;
}

/** The edition labels of a title's trailing bracket groups, lower case; a year alone counts as "year". */
export function editionLabels(title: string): Set<string> {
  const labels = new Set<string>();
  let text = title;
  for (let match = TRAILING_GROUP.exec(text); match; match = TRAILING_GROUP.exec(text)) {
    const inner = match[1] ?? '';
    const words = inner.match(EDITION_WORDS)?.map((word) => word.toLowerCase().replace(/'s?$/, '')) ?? [];
    if (/^\s*\d{4}\s*$/.test(inner)) words.push('year');
    if (words.length === 0) break;
    for (const word of words) labels.add(word === 'remaster' ? 'remastered' : word);
    text = text.slice(0, match.index);
  }
  return labels;
}
