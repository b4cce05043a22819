/**
 * The completion certificate's data as the PDF/A-3 associated file completion-certificate.json:
 * exactly what the certificate pages show (certificate.ts), machine-readable (RFC 8785 canonical
 * JSON), so software can read the facts without parsing page text. Masked contacts stay masked.
 * A time not known yet (a qes document is rendered before the tokens sign: NaN) is null.
 */
import { DOCUMENT_HASH_ALG } from '../../domain/documentHash.js';
import { canonicalJson } from '../canonicalJson.js';
import type { FinalDocumentInput } from '../types.js';
import type { AssociatedFile } from './archival.js';

export const CERTIFICATE_DATA_NAME = 'completion-certificate.json';

const known = (seconds: number): number | null => (Number.isFinite(seconds) ? seconds : null);

export function certificateDataFile(input: FinalDocumentInput): AssociatedFile {
  const data = {
    signature_request: {
      id: input.request_id,
      reference: input.reference,
      title: input.title,
      language: input.language,
      legal_level: input.legal_level,
      format: input.format,
      livemode: input.livemode,
      created_at: known(input.created_at),
      completed_at: known(input.completed_at),
      verification_url: input.verification_url,
    },
    sender: input.sender,
    document: { hash_alg: DOCUMENT_HASH_ALG, hash: input.document_hash },
    signers: [...input.signers]
      .sort((a, b) => a.order - b.order)
      .map((s) => ({
        order: s.order,
        name: s.name,
        email_masked: s.email_masked,
        phone_masked: s.phone_masked,
        method: s.method,
        signed_at: known(s.signed_at),
        ip: s.ip,
        user_agent: s.user_agent,
        identity: s.identity,
      })),
    events: [...input.trail].sort((a, b) => a.at - b.at).map((e) => ({ ...e, at: known(e.at) })),
  };
  return {
    name: CERTIFICATE_DATA_NAME,
    bytes: new TextEncoder().encode(canonicalJson(data)),
    mimeType: 'application/json',
    relationship: 'Data',
    description: 'Completion certificate data (what the certificate pages show)',
  };
}
