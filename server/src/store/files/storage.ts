import { isFileKey, MAX_FILE_KEY_LENGTH } from '../../domain/fileKeys.js';

/**
 * The file-storage port: sealed PDFs (and later other files) by key, as bytes. Backends: the
 * DATA_DIR folder (folder.ts), an S3-compatible bucket (s3.ts); a PostgreSQL one (a `files` table,
 * key → bytea) fits the same shape. Keys follow domain/fileKeys.ts; every method refuses another
 * key with a FileKeyError before any I/O.
 */
export interface FileStorage {
  /** Which backend and where, for logs: never a credential. */
  readonly description: string;
  /** Store the bytes under the key, replacing what was there; readers see the old or the new bytes, never a part. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under the key, or null when there are none; any other failure throws. */
  get(key: string): Promise<Buffer | null>;
  /** Remove the file under the key; removing a missing file is not an error. */
  delete(key: string): Promise<void>;
  /** At start: throws when the backend cannot be used (S3: the bucket does not answer to these settings). */
  check(): Promise<void>;
  /** Release connections (the server's close and drain). */
  close(): Promise<void>;
}

export class FileKeyError extends Error {
  constructor(key: string) {
    super(`not a file key: ${JSON.stringify(key.slice(0, MAX_FILE_KEY_LENGTH + 1))}`);
    this.name = 'FileKeyError';
  }
}

/** Throws a FileKeyError unless the key is valid (domain/fileKeys.ts). */
export function assertFileKey(key: string): void {
  if (!isFileKey(key)) throw new FileKeyError(key);
}
