import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time passwords (RFC 6238) for the console's second factor, with the `otpauth`
 * package: the parameters every authenticator app understands (SHA-1, 6 digits, 30 s), so the
 * QR code's `otpauth://` address enrols Google Authenticator, 1Password, Authy and the rest alike.
 * One module for enrolment (a new secret, its address) and verification (sign-in, confirming),
 * so both read a code the same way. The secret is raw bytes here (what is sealed at rest,
 * services/consoleCrypto.ts); users see it as base32, the form apps take.
 */
const ISSUER = 'Tawqi';
const PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Codes one step either side of now are accepted: a phone clock a little off, a code typed as it turned. */
const WINDOW = 1;
/** 160 bits, RFC 4226's recommended length. */
const SECRET_BYTES = 20;

export function newTotpSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

function totpOf(secret: Uint8Array, label = ''): TOTP {
  return new TOTP({ issuer: ISSUER, label, ...PARAMS, secret: new Secret({ buffer: Uint8Array.from(secret).buffer }) });
}

/** The secret as an authenticator app takes it when typed in (base32, no padding). */
export function totpBase32(secret: Uint8Array): string {
  return new Secret({ buffer: Uint8Array.from(secret).buffer }).base32;
}

/** The `otpauth://totp/Tawqi:<email>?issuer=Tawqi&secret=…` address the QR code carries. */
export function totpUrl(secret: Uint8Array, email: string): string {
  return totpOf(secret, email).toString();
}

/** The code at a moment (what an authenticator app shows; tests compute it). */
export function totpCode(secret: Uint8Array, nowMs: number): string {
  return totpOf(secret).generate({ timestamp: nowMs });
}

/**
 * The 30-second step (counted from the Unix epoch) whose code `code` is, when it is valid at
 * `nowMs` (this step or one either side), else null. Spaces are allowed (apps show "123 456");
 * otpauth compares in constant time. Sign-in keeps the last step taken, so a code works once.
 */
export function totpStep(secret: Uint8Array, code: string, nowMs: number): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secret).validate({ token, timestamp: nowMs, window: WINDOW });
  return delta === null ? null : Math.floor(nowMs / 1000 / PARAMS.period) + delta;
}

/** Whether `code` is valid at `nowMs` (totpStep). */
export function checkTotp(secret: Uint8Array, code: string, nowMs: number): boolean {
  return totpStep(secret, code, nowMs) !== null;
}
