import type { FinalDocumentInput } from '../../server/src/sealing/types.js';

/** The smallest final-PDF input (no signer images): for tests that need a sealed PDF of a format, not its look. */
export function minimalFinalInput(format: string, completedAt: number): FinalDocumentInput {
  return {
    request_id: 'sr_01J0VALIDATE0000000000',
    reference: 'REF-VAL1DATE',
    title: 'اتفاقية توريد',
    language: 'ar',
    legal_level: 'aes',
    format,
    livemode: true,
    document_text: 'يلتزم المورّد بتسليم البضاعة خلال 30 يومًا من تاريخ التوقيع.',
    document_hash: 'a'.repeat(64),
    created_at: completedAt - 600,
    completed_at: completedAt,
    sender: { account_name: 'شركة الفرات', brand_name: null },
    signers: [],
    trail: [],
    verification_url: 'https://sign.example.com/verify/REF-VAL1DATE',
  };
}
