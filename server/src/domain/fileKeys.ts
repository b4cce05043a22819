/**
 * Keys of stored files (server/src/store/files): one key names the same bytes on every backend — a
 * path under DATA_DIR, an S3 object key after TAWQI_S3_PREFIX, a row of a files table — so moving
 * files between backends is copying key → bytes.
 *
 * A key is a collection (a known top-level folder) and a name: segments joined by '/', each of
 * ASCII letters, digits, '.', '_' and '-', none empty and none starting with '.' (so no '.', '..',
 * hidden or temporary names), at most MAX_FILE_KEY_LENGTH characters. Nothing else is accepted:
 * no absolute path, backslash, space, control or non-ASCII character. The collections keep the
 * folder backend, rooted at DATA_DIR, away from the database, secrets.json and pki/ beside them.
 */

/** Top-level folders files are kept in; a new kind of file adds its own. */
export const FILE_COLLECTIONS = ['documents', 'branding', 'company_documents'] as const;
export type FileCollection = (typeof FILE_COLLECTIONS)[number];

export const MAX_FILE_KEY_LENGTH = 512;

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Segments joined by '/' (no empty, '.'-led or odd segment); the shape of a key and of TAWQI_S3_PREFIX. */
export function isKeyPath(text: string): boolean {
  return text.length > 0 && text.length <= MAX_FILE_KEY_LENGTH && text.split('/').every((s) => SEGMENT.test(s));
}

/** A valid key: a known collection, then at least one more segment. */
export function isFileKey(key: string): boolean {
  const [collection, ...rest] = key.split('/');
  return isKeyPath(key) && rest.length > 0 && (FILE_COLLECTIONS as readonly string[]).includes(collection!);
}

/** The final (sealed) PDF of a request: DATA_DIR/documents/<id>.pdf in the folder backend, as ever. */
export function sealedPdfKey(requestId: string): string {
  return `documents/${requestId}.pdf`;
}

/** An uploaded branding logo, named by its account and the SHA-256 of its bytes (so a new logo is a new address). */
export function brandingLogoKey(fileName: string): string {
  return `branding/${fileName}`;
}

/** A company verification document of an account (uploaded by its owner, read by the operator). */
export function companyDocumentKey(accountId: string, documentId: string): string {
  return `company_documents/${accountId}/${documentId}`;
}
