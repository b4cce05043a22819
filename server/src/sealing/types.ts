/**
 * What the sealing pipeline renders and signs. Built by sealing/seal.ts from a completed request;
 * consumed by sealing/pdf (rendering), sealing/pades (signatures) and sealing/evidence.
 */
export interface SignerOnDocument {
  id: string;
  name: string;
  /** Masked on the certificate page (e.g. s***@example.com, ********4567). */
  email_masked: string | null;
  phone_masked: string | null;
  order: number;
  method: 'draw' | 'token';
  /** PNG bytes of the drawn signature (method draw); null for token signatures. */
  signature_png: Uint8Array | null;
  signed_at: number;
  ip: string | null;
  user_agent: string | null;
  identity: { status: string; provider: string | null; name_match: string | null } | null;
}

export interface TrailEntry {
  at: number;
  type: string;
  /** Who or what: a signer's name, "system", "sender". */
  actor: string;
  ip: string | null;
  user_agent: string | null;
}

export interface FinalDocumentInput {
  request_id: string;
  reference: string;
  title: string;
  language: 'ar' | 'en';
  legal_level: 'ses' | 'aes' | 'qes';
  format: string;
  livemode: boolean;
  /** The contract text with the field values filled in (plain text, paragraphs split by blank lines). */
  document_text: string;
  /** HMAC-SHA256 of document_text under the server's document key, hex (what verification compares). */
  document_hash: string;
  created_at: number;
  completed_at: number;
  sender: { account_name: string; brand_name: string | null };
  signers: SignerOnDocument[];
  trail: TrailEntry[];
  /** Where anyone can check the reference, e.g. https://sign.example.com/verify/REF-… */
  verification_url: string;
}
