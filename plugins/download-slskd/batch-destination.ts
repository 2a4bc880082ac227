import type { WantedItem } from '@crateflow/sdk';

// Characters that slskd's FileSafety replaces on Windows hosts (the stricter of its two lists, which includes
// Linux's '/' and NUL) plus control characters: a destination free of them reaches the disk unchanged on any host,
// so the folder the plugin reports is the folder slskd writes.
const UNSAFE = /[\\/"<>|:*?\u0000-\u001f]/g;
const MAX_NAME = 120;

/**
 * The `options.destination` the plugin sends with an slskd 0.26+ batch: one folder per download,
 * `Artist - Album [ref]`, under slskd's downloads directory. The ref makes it unique, so two albums whose remote
 * folders are both called "FLAC" (or two attempts at the same album) never share a folder; the names keep it
 * readable for a person looking at the downloads directory.
 *
 * @example
 * batchDestination({ artist: 'Portishead', album: 'Dummy', … }, 'dl_7') // 'Portishead - Dummy [dl_7]'
 */
export function batchDestination(item: WantedItem, ref: string): string {
  const title = item.album ?? item.title ?? '';
  const name = `${item.artist}${title ? ` - ${title}` : ''}`.replace(UNSAFE, '_').replace(/\s+/g, ' ').trim().slice(0, MAX_NAME).trim();
  // A leading dot would hide the folder, and "." or ".." are traversal segments slskd refuses.
  const visible = name.replace(/^\.+/, '_');
  return `${visible} [${ref.replace(UNSAFE, '_')}]`;
}
