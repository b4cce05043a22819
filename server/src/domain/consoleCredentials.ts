import { randomBytes } from 'node:crypto';

/**
 * The console's internal credential (issue 15 point 6): a signed-in user calls the public API with
 * it as a Bearer token, under the rules, limits and audit of a secret key of the account. Its
 * prefix is not a customer key's (sk_, pk_), so it can never be mistaken for one, listed among the
 * account's keys, or pasted into a server as if it were one.
 */
const CREDENTIAL_PATTERN = /^ck_(test_)?[0-9a-f]{40}$/;

/** ck_ (live) or ck_test_ followed by 40 hexadecimal characters (160 random bits). */
export function generateConsoleCredential(livemode: boolean): string {
  return (livemode ? 'ck_' : 'ck_test_') + randomBytes(20).toString('hex');
}

export function looksLikeConsoleCredential(text: string): boolean {
  return CREDENTIAL_PATTERN.test(text);
}

/** What a credential may do: write for roles that may change requests, read for the others (viewer). */
export type CredentialAccess = 'write' | 'read';
