/**
 * Turns an artist or album name into something safe to use as one file-name segment: no path separators, no
 * `..`, no control or reserved characters, bounded length. The blackhole writes request files named after
 * user-supplied names, so this is what stands between a hostile "../../etc" and the file system.
 */
export function safeFileName(name: string, maxLength = 80): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[/\\:*?"<>|]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '_');
  const bounded = [...cleaned].slice(0, maxLength).join('').trim();
  return bounded.length > 0 ? bounded : '_';
}
