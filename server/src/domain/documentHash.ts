import { createHmac } from 'node:crypto';

/**
 * The document hash of a verification (spec 2.6): HMAC-SHA256 of the stored document text under
 * the server's document key, so the hash proves integrity to the server without letting anyone
 * confirm a guessed text from the public hash alone.
 */
export const DOCUMENT_HASH_ALG = 'hmac-sha256';

export function documentHash(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}
