import type { Download } from '@tawqi/shared/api';
import type { SealedDocument } from '../store/sealing.js';

/** GET /signature_requests/{id}/download: where the final document is (spec 2.7). */
export function presentDownload(publicUrl: string, d: SealedDocument): Download {
  const base = `${publicUrl}/api/v1/signature_requests/${d.signature_request_id}`;
  return {
    object: 'download' as const,
    pdf_url: d.pdf_status === 'ready' ? `${base}/download/pdf` : null,
    pdf_status: d.pdf_status,
    pdf_sha256: d.pdf_sha256,
    final_document_url: `${base}/document`,
    reference: d.reference,
  };
}
