import { maskEmail, maskPhone } from '../domain/keys.js';
import type { ServiceContext } from '../context.js';
import { getAccount } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import { listEvents } from '../store/events.js';
import type { SealedDocument } from '../store/sealing.js';
import { getRequestById, signersOf } from '../store/signatureRequests.js';
import type { FinalDocumentInput, TrailEntry } from './types.js';

/** Event types shown on the completion certificate's trail (what happened to the document). */
const TRAIL_TYPES = new Set([
  'signature_request.created', 'signature_request.sent', 'signer.sent', 'signer.viewed', 'signer.otp_verified',
  'signer.identity_verified', 'signer.identity_match_hold', 'signer.identity_match_decided', 'signer.signed', 'signature_request.completed',
]);

/** Everything the final PDF, the certificate and the evidence record show, read from the store. */
export async function finalDocumentInput(ctx: ServiceContext, db: Db, sealed: SealedDocument): Promise<FinalDocumentInput> {
  const request = (await getRequestById(db, sealed.signature_request_id))!;
  const signers = await signersOf(db, request.id);
  const account = (await getAccount(db, request.account_id))!;
  const events = await listEvents(db, { accountId: request.account_id, livemode: request.livemode, signatureRequestId: request.id, limit: 1000 });
  const names = new Map(signers.map((s) => [s.id, s.name]));
  const trail: TrailEntry[] = events
    .filter((e) => TRAIL_TYPES.has(e.type))
    .reverse()
    .map((e) => {
      const obj = e.data.object as { object?: string; id?: string };
      return {
        at: e.created_at,
        type: e.type,
        actor: obj.object === 'signer' && obj.id ? (names.get(obj.id) ?? 'signer') : 'system',
        ip: e.request_info?.ip ?? null,
        user_agent: e.request_info?.user_agent ?? null,
      };
    });
  const branding = account.branding as { brand_name?: unknown };
  return {
    request_id: request.id,
    reference: sealed.reference,
    title: request.title,
    language: request.language,
    legal_level: request.legal_level,
    format: request.format,
    livemode: request.livemode,
    document_text: sealed.document_text,
    document_hash: sealed.document_hash,
    created_at: request.created_at,
    completed_at: request.completed_at ?? sealed.created_at,
    sender: { account_name: account.name, brand_name: typeof branding.brand_name === 'string' ? branding.brand_name : null },
    signers: signers.map((s) => ({
      id: s.id,
      name: s.name,
      email_masked: s.email ? maskEmail(s.email) : null,
      phone_masked: s.phone ? maskPhone(s.phone) : null,
      order: s.position,
      method: s.method,
      signature_png: s.signature_image ? Buffer.from(s.signature_image.slice(s.signature_image.indexOf(',') + 1), 'base64') : null,
      signed_at: s.signed_at ?? sealed.created_at,
      ip: s.ip,
      user_agent: s.user_agent,
      identity: s.require_identity ? { status: s.identity.status, provider: s.identity.provider, name_match: s.identity.name_match?.state ?? null } : null,
    })),
    trail,
    verification_url: `${ctx.publicUrl}/verify/${sealed.reference}`,
  };
}
