import { booleanField, numberField, stringField, arrayField, isRecord, type JsonRecord } from '@crateflow/sdk';
import { remoteBaseName } from './remote-path.js';

/**
 * slskd's search-response and transfer JSON, read into the few members the plugin uses. Unknown or missing
 * members get safe defaults: slskd leaves out properties whose value is null (slskd-api.md §1).
 */

/** A file in a search response, as the scorer needs it. */
export interface SlskdFile {
  filename: string;
  size: number;
  extension: string;
  bitRate?: number;
  bitDepth?: number;
  length?: number;
}

/** One peer's answer to a search. */
export interface SlskdSearchResponse {
  username: string;
  hasFreeUploadSlot: boolean;
  queueLength: number;
  uploadSpeed: number;
  files: SlskdFile[];
}

/** A download transfer record (only the members the plugin reads). */
export interface SlskdTransfer {
  id: string;
  filename: string;
  size: number;
  state: string;
  bytesTransferred: number;
  exception?: string;
  nextAttemptAt?: string;
}

export function toSearchResponse(record: JsonRecord): SlskdSearchResponse {
  return {
    username: stringField(record, 'username') ?? '',
    hasFreeUploadSlot: booleanField(record, 'hasFreeUploadSlot') ?? false,
    queueLength: numberField(record, 'queueLength') ?? 0,
    uploadSpeed: numberField(record, 'uploadSpeed') ?? 0,
    files: arrayField(record, 'files').filter(isRecord).flatMap((file) => toFile(file) ?? []),
  };
}

function toFile(record: JsonRecord): SlskdFile | undefined {
  const filename = stringField(record, 'filename');
  const size = numberField(record, 'size');
  if (!filename || size === undefined) return undefined;
  const name = remoteBaseName(filename);
  const dot = name.lastIndexOf('.');
  const extension = (stringField(record, 'extension') || (dot > 0 ? name.slice(dot + 1) : '')).toLowerCase().replace(/^\./, '');
  return { filename, size, extension, bitRate: numberField(record, 'bitRate'), bitDepth: numberField(record, 'bitDepth'), length: numberField(record, 'length') };
}

export function toTransfer(record: JsonRecord): SlskdTransfer | undefined {
  const id = stringField(record, 'id');
  const filename = stringField(record, 'filename');
  if (!id || !filename) return undefined;
  return {
    id,
    filename,
    size: numberField(record, 'size') ?? 0,
    state: stringField(record, 'state') ?? '',
    bytesTransferred: numberField(record, 'bytesTransferred') ?? 0,
    exception: stringField(record, 'exception'),
    nextAttemptAt: stringField(record, 'nextAttemptAt'),
  };
}
