import { createHash } from 'node:crypto';
import { canonicalJson } from './canonicalJson.js';
import { DOCUMENT_HASH_ALG } from '../domain/documentHash.js';
import type { AssociatedFile } from './pdf/index.js';
import { timestampData, tokenFromResponse, type Pki } from './pki/index.js';
import type { FinalDocumentInput } from './types.js';

export const EVIDENCE_VERSION = 1;

/**
 * The evidence record (spec 1.4, 2.9): record_raw is the RFC 8785 canonical JSON of the request,
 * its signers, its event trail and the document hash; an Ed25519 signature over exactly those
 * bytes; the public key; and an RFC 3161 token over SHA-256(record_raw).
 */
export async function buildEvidence(pki: Pki, input: FinalDocumentInput, pdfSha256: string) {
  return signRecord(pki, evidenceRecord(pki, input, pdfSha256));
}

/**
 * The evidence record the final PDF carries (PDF/A-3 associated files): the same record without
 * document.pdf_sha256 — a file cannot contain its own hash; the PAdES seal over the whole file
 * protects it instead — signed with the same Ed25519 key and time-stamped the same way.
 * evidence-record.json holds record_raw exactly as signed; evidence-signature.json the signature,
 * public key and RFC 3161 token over it.
 */
export async function embeddedEvidence(pki: Pki, input: FinalDocumentInput): Promise<AssociatedFile[]> {
  const signed = await signRecord(pki, evidenceRecord(pki, input, null));
  const proof = {
    signed_file: EMBEDDED_RECORD_NAME,
    algorithm: 'Ed25519',
    evidence_key_id: pki.evidence.keyId,
    public_key: signed.public_key,
    signature: signed.signature,
    timestamp_token: signed.timestamp_token,
  };
  const json = (text: string) => new TextEncoder().encode(text);
  return [
    {
      name: EMBEDDED_RECORD_NAME,
      bytes: json(signed.record_raw),
      mimeType: 'application/json',
      relationship: 'Supplement',
      description: 'Evidence record (RFC 8785 canonical JSON) as signed by the evidence key',
    },
    {
      name: 'evidence-signature.json',
      bytes: json(canonicalJson(proof)),
      mimeType: 'application/json',
      relationship: 'Supplement',
      description: 'Ed25519 signature and RFC 3161 timestamp token over evidence-record.json',
    },
  ];
}

export const EMBEDDED_RECORD_NAME = 'evidence-record.json';

/** The record; pdfSha256 null for the copy embedded in the PDF itself. */
function evidenceRecord(pki: Pki, input: FinalDocumentInput, pdfSha256: string | null) {
  const document = { hash_alg: DOCUMENT_HASH_ALG, hash: input.document_hash };
  return {
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
    document: pdfSha256 === null ? document : { ...document, pdf_sha256: pdfSha256 },
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
}

/** Canonical JSON, Ed25519 signature over it and an RFC 3161 token over its SHA-256. */
async function signRecord(pki: Pki, record: object) {
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
