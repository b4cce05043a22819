/**
 * Sign tickets (shared/src/agentProtocol.ts): a compact `base64url(payload JSON) '.' base64url(Ed25519
 * signature over the ASCII bytes of the first part)`, signed with the server's evidence key (the key
 * published at /pki/evidence-key.pem, which the agent pins per server origin).
 */
import { randomBytes } from 'node:crypto';
import {
  encodeSignTicketPayload,
  joinSignTicket,
  SIGN_TICKET_TYP,
  SignTicketPayloadSchema,
  splitSignTicket,
  type SignTicketPayload,
} from '@tawqi/shared';
import type { EvidenceKey } from '../pki/index.js';

/** How long a ticket (and the prepared signature it names) lives, in seconds (the protocol allows ≤ 300). */
export const TICKET_LIFETIME_SECONDS = 300;

export type TicketInput = Omit<SignTicketPayload, 'v' | 'typ' | 'digest_alg' | 'iat' | 'exp' | 'jti'>;

export function issueTicket(key: EvidenceKey, input: TicketInput, now: number): { ticket: string; payload: SignTicketPayload } {
  const payload: SignTicketPayload = {
    v: 1,
    typ: SIGN_TICKET_TYP,
    iss: input.iss,
    request_id: input.request_id,
    signer_id: input.signer_id,
    title: input.title,
    pages: input.pages,
    digest_alg: 'sha-256',
    digest: input.digest,
    cert_sha256: input.cert_sha256,
    preview_url: input.preview_url,
    iat: now,
    exp: now + TICKET_LIFETIME_SECONDS,
    jti: randomBytes(18).toString('base64url'),
  };
  const signedPart = encodeSignTicketPayload(payload);
  return { ticket: joinSignTicket(signedPart, key.sign(Buffer.from(signedPart, 'ascii'))), payload };
}

/** Why a ticket is refused (the `reason` of a ticket_invalid error). */
export type TicketRefusal = 'malformed' | 'signature' | 'issuer' | 'expired' | 'unknown' | 'used' | 'other_signer';

export class TicketError extends Error {
  constructor(readonly reason: TicketRefusal) {
    super(`sign ticket refused: ${reason}`);
    this.name = 'TicketError';
  }
}

/**
 * The payload of a ticket this server issued: signature (before anything in it is read), issuer,
 * shape and expiry. Whether its jti is still open is the caller's business (the store knows).
 */
export function verifyTicket(key: EvidenceKey, ticket: string, expectedIssuer: string, now: number): SignTicketPayload {
  let split: ReturnType<typeof splitSignTicket>;
  try {
    split = splitSignTicket(ticket);
  } catch {
    throw new TicketError('malformed');
  }
  if (split.signature.byteLength !== 64 || !key.verify(Buffer.from(split.signedPart, 'ascii'), split.signature))
    throw new TicketError('signature');
  const parsed = SignTicketPayloadSchema.safeParse(split.payload);
  if (!parsed.success) throw new TicketError('malformed');
  if (parsed.data.iss !== expectedIssuer) throw new TicketError('issuer');
  if (parsed.data.exp <= now) throw new TicketError('expired');
  return parsed.data;
}
