import { createHash } from 'node:crypto';
import { canonicalJson } from './canonicalJson.js';
import { DOCUMENT_HASH_ALG } from '../domain/documentHash.js';
import { timestampData, tokenFromResponse, type Pki } from './pki/index.js';
import type { FinalDocumentInput } from './types.js';

export const EVIDENCE_VERSION = 1;

/**
 * The evidence record (spec 1.4, 2.9): record_raw is the RFC 8785 canonical JSON of the request,
 * its signers, its event trail and the document hash; an Ed25519 signature over exactly those
 * bytes; the public key; and an RFC 3161 token over SHA-256(record_raw).
 */
export async function buildEvidence(pki: Pki, input: FinalDocumentInput, pdfSha256: string) {
  const record = {
    version: EVIDENCE_VERSION,
    reference: input.reference,
    signature_request: {
      id: input.request_id,
      title: input.title,
      legal_level: input.legal_level,
      format: input.format,
      language: input.language,
      created_at: input.created_at,
      completed_at: input.completed_at,
    },
    document: { hash_alg: DOCUMENT_HASH_ALG, hash: input.document_hash, pdf_sha256: pdfSha256 },
    signers: input.signers.map((s) => ({
      id: s.id,
      name: s.name,
      order: s.order,
      method: s.method,
      signed_at: s.signed_at,
      ip: s.ip,
      user_agent: s.user_agent,
      identity: s.identity,
      signature_image_sha256: s.signature_png ? createHash('sha256').update(s.signature_png).digest('hex') : null,
    })),
    events: input.trail,
    evidence_key_id: pki.evidence.keyId,
  };
  const recordRaw = canonicalJson(record);
  const bytes = Buffer.from(recordRaw, 'utf8');
  const signature = pki.evidence.sign(bytes);
  const token = tokenFromResponse(await timestampData(pki, bytes));
  return {
    record_raw: recordRaw,
    signature: Buffer.from(signature).toString('base64'),
    public_key: pki.evidence.publicKeyPem,
    timestamp_token: Buffer.from(token).toString('base64'),
  };
}
