/**
 * Turns an artist or album name into something safe to use as one file-name segment: no path separators, no
 * `..`, no control or reserved characters, bounded length. The blackhole writes request files named after
 * user-supplied names, so this is what stands between a hostile "../../etc" and the file system.
 *
 * The length is bounded in characters and in UTF-8 bytes: file systems limit a name to 255 bytes, and 80
 * Japanese or emoji characters are 240–320 bytes, so a request file named `<artist> - <album> [<id>].json`
 * (plus `.tmp` while it is written) would fail with ENAMETOOLONG on every attempt. 96 bytes per name keeps
 * that whole name under 255.
 */
export function safeFileName(name: string, maxLength = 80, maxBytes = 96): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[/\\:*?"<>|]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '_');
  const kept: string[] = [];
  let bytes = 0;
  for (const char of cleaned) {
    bytes += Buffer.byteLength(char); // a lone surrogate is written as U+FFFD: 3 bytes, as counted here
    if (kept.length >= maxLength || bytes > maxBytes) break;
    kept.push(char);
  }
  const bounded = kept.join('').trim();
  return bounded.length > 0 ? bounded : '_';
}
