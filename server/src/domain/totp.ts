import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time passwords (RFC 6238) for the console's second factor, with the `otpauth`
 * package: the parameters every authenticator app understands (SHA-1, 6 digits, 30 s), so the
 * QR code's `otpauth://` address enrols Google Authenticator, 1Password, Authy and the rest alike.
 * One module for enrolment (a new secret, its address) and verification (sign-in, confirming,
 * disabling), so both read a code the same way. The secret travels as base32, the form apps take.
 */
const ISSUER = 'Tawqi';
const PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Codes one step either side of now are accepted: a phone clock a little off, a code typed as it turned. */
const WINDOW = 1;

/** A new random secret (160 bits, RFC 4226's recommended length), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secretBase32: string, label = ''): TOTP {
  return new TOTP({ issuer: ISSUER, label, ...PARAMS, secret: Secret.fromBase32(secretBase32) });
}

/** The `otpauth://totp/Tawqi:<email>?secret=…&issuer=Tawqi…` address the QR code carries. */
export function totpUrl(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

/** The code for a moment (tests compute what an authenticator app would show). */
export function totpCode(secretBase32: string, nowMs: number): string {
  return totpOf(secretBase32).generate({ timestamp: nowMs });
}

/** Whether `code` (spaces allowed, as apps show "123 456") is valid now; compared in constant time by otpauth. */
export function checkTotp(secretBase32: string, code: string, nowMs: number): boolean {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return false;
  return totpOf(secretBase32).validate({ token, timestamp: nowMs, window: WINDOW }) !== null;
}

// ---------------------------------------------------------------------------------------------
// Recovery codes
// ---------------------------------------------------------------------------------------------

/** How many recovery codes a user gets at once (shown once; a new set replaces the old). */
export const RECOVERY_CODE_COUNT = 10;
/** Lower-case letters and digits without the look-alikes (0/o, 1/l/i): easy to copy from paper. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** Two groups of five: 10 characters of a 31-letter alphabet, ~49.5 bits each, single use. */
const GROUP = 5;

/** A new set of recovery codes, as shown to the user ("abcde-fghjk"). */
export function newRecoveryCodes(): string[] {
  const one = () => Array.from({ length: GROUP * 2 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const c = one();
    return `${c.slice(0, GROUP)}-${c.slice(GROUP)}`;
  });
}

/** A recovery code as typed, to the form that is hashed: case, spaces and dashes do not matter. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}
