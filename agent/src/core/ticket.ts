/**
 * Checking a sign ticket (server → page → agent): its Ed25519 signature with the key the user
 * pinned for the page's origin, its shape, its issuer (= the page's origin), its lifetime, and that
 * its jti was never seen before. Refuses anything else, with the protocol's error codes.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { SignTicketPayloadSchema, splitSignTicket, type SignTicketPayload } from '@tawqi/shared';

export type TicketFailure = 'ticket_invalid' | 'ticket_expired' | 'ticket_replayed' | 'ticket_origin_mismatch';

export type TicketCheck = { ok: true; payload: SignTicketPayload } | { ok: false; code: TicketFailure; reason: string };

/** Clock difference tolerated between the server and this machine, in seconds. */
export const CLOCK_SKEW_S = 60;

/**
 * jti values already used, each kept until its ticket would have expired anyway. With a file, the
 * list survives a restart of the agent (a ticket lives at most 5 minutes, so the file stays small).
 */
export class JtiRegistry {
  private readonly seen = new Map<string, number>();

  constructor(private readonly file?: string) {
    if (!file) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      for (const [jti, until] of Object.entries(saved)) if (typeof until === 'number') this.seen.set(jti, until);
    } catch {
      // no file yet, or unreadable: start empty
    }
  }

  has(jti: string): boolean {
    return this.seen.has(jti);
  }

  add(jti: string, exp: number, nowS: number): void {
    for (const [k, until] of this.seen) if (until < nowS) this.seen.delete(k);
    this.seen.set(jti, exp + CLOCK_SKEW_S);
    if (this.file) {
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.seen)), { mode: 0o600 });
      renameSync(tmp, this.file);
    }
  }
}

export function publicKeyFromPem(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the server key is not an Ed25519 public key');
  return key;
}

export interface VerifyTicketOptions {
  ticket: string;
  /** The Origin header of the page's connection. */
  origin: string;
  /** The Ed25519 key pinned for that origin. */
  serverKey: KeyObject;
  nowS: number;
  jtis: JtiRegistry;
}

/** Checks everything; on success records the jti, so a second use of the same ticket fails. */
export function verifyTicket(options: VerifyTicketOptions): TicketCheck {
  let split;
  try {
    split = splitSignTicket(options.ticket);
  } catch {
    return { ok: false, code: 'ticket_invalid', reason: 'malformed' };
  }
  const signedOk =
    split.signature.byteLength === 64 && verify(null, Buffer.from(split.signedPart, 'ascii'), options.serverKey, split.signature);
  if (!signedOk) return { ok: false, code: 'ticket_invalid', reason: 'signature does not verify with the server key' };

  // The schema also refuses exp <= iat and a lifetime over SIGN_TICKET_MAX_LIFETIME_S.
  const parsed = SignTicketPayloadSchema.safeParse(split.payload);
  if (!parsed.success) return { ok: false, code: 'ticket_invalid', reason: `payload: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const payload = parsed.data;
  if (payload.iss !== options.origin) return { ok: false, code: 'ticket_origin_mismatch', reason: `issued by ${payload.iss}` };
  if (payload.iat > options.nowS + CLOCK_SKEW_S) return { ok: false, code: 'ticket_invalid', reason: 'issued in the future' };
  if (payload.exp <= options.nowS - CLOCK_SKEW_S) return { ok: false, code: 'ticket_expired', reason: 'expired' };
  if (options.jtis.has(payload.jti)) return { ok: false, code: 'ticket_replayed', reason: 'jti already used' };
  options.jtis.add(payload.jti, payload.exp, options.nowS);
  return { ok: true, payload };
}
