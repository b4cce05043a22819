import { downloadSchema, evidenceRecordSchema, type EvidenceRecord } from '@tawqi/shared/api';
import { sealedPdfKey } from '../../domain/fileKeys.js';
import { ApiError } from '../../errors.js';
import { loadOwned } from '../../services/signatureRequests.js';
import { documentHtml } from '../../sealing/documentHtml.js';
import { finalDocumentInput } from '../../services/sealing.js';
import { renderCertificatePdf } from '../../sealing/pdf/index.js';
import { presentDownload } from '../../presenters/download.js';
import { getEvidence, getSealedDocument, type SealedDocument } from '../../store/sealing.js';
import type { AppContext } from '../context.js';
import { setPageHeaders } from '../pageHeaders.js';
import { defineRoute } from './registry.js';
import type { Request } from 'express';

/** The sealed document of a completed request of this key's account and mode; 400 before completion. */
async function completedDocument(ctx: AppContext, req: Request): Promise<SealedDocument> {
  const { request } = await loadOwned(ctx.store.db, req.tawqi.auth!, String(req.params.id));
  const sealed = request.status === 'completed' ? await getSealedDocument(ctx.store.db, request.id) : undefined;
  if (!sealed) throw new ApiError('request_not_completed', 'id');
  return sealed;
}

export const documentRoutes = [
  defineRoute({
    method: 'get',
    path: '/signature_requests/:id/download',
    summary: 'Where the final document is: pdf_status pending → ready (or unavailable: use final_document_url)',
    tag: 'documents',
    access: 'key',
    status: 200,
    response: downloadSchema,
    errors: ['not_found', 'request_not_completed'],
    handle: async (ctx, { req, res }) => {
      const d = await completedDocument(ctx, req);
      res.json(presentDownload(ctx.publicUrl, d));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signature_requests/:id/download/pdf',
    summary: 'The final PDF (secret key); X-File-Sha256 equals pdf_sha256',
    tag: 'documents',
    access: 'secret',
    status: 200,
    produces: 'application/pdf',
    errors: ['not_found', 'request_not_completed', 'pdf_not_ready', 'pdf_unavailable', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const d = await completedDocument(ctx, req);
      if (d.pdf_status === 'pending') throw new ApiError('pdf_not_ready', 'id', {}, { 'Retry-After': '2' });
      if (d.pdf_status === 'unavailable')
        throw new ApiError('pdf_unavailable', 'id', {
          final_document_url: `${ctx.publicUrl}/api/v1/signature_requests/${d.signature_request_id}/document`,
        });
      const bytes = await ctx.files.get(sealedPdfKey(d.signature_request_id));
      if (!bytes) throw new Error(`final PDF of ${d.signature_request_id} is ready but missing from ${ctx.files.description}`);
      res.setHeader('X-File-Sha256', d.pdf_sha256!);
      res.setHeader('Content-Disposition', `attachment; filename="${d.reference}.pdf"`);
      res.type('application/pdf').send(bytes);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signature_requests/:id/document',
    summary: 'The final document as HTML (final_document_url): served even when the PDF is unavailable (secret key)',
    tag: 'documents',
    access: 'secret',
    status: 200,
    produces: 'text/html',
    errors: ['not_found', 'request_not_completed', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const d = await completedDocument(ctx, req);
      const input = await finalDocumentInput(ctx, ctx.store.db, d);
      // The document's own inline styles and data: images (documentHtml); no script, never framed.
      setPageHeaders(
        res,
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      res.type('html').send(documentHtml(input));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signature_requests/:id/certificate',
    summary: 'The completion certificate alone, as PDF (secret key)',
    tag: 'documents',
    access: 'secret',
    status: 200,
    produces: 'application/pdf',
    errors: ['not_found', 'request_not_completed', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const d = await completedDocument(ctx, req);
      const bytes = await renderCertificatePdf(await finalDocumentInput(ctx, ctx.store.db, d));
      res.setHeader('Content-Disposition', `attachment; filename="${d.reference}-certificate.pdf"`);
      res.type('application/pdf').send(Buffer.from(bytes));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signature_requests/:id/evidence',
    summary:
      'The sealed evidence record (live requests; 404 until sealed): record_raw (RFC 8785), Ed25519 signature, public key, RFC 3161 token',
    tag: 'documents',
    access: 'secret',
    status: 200,
    response: evidenceRecordSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const { request } = await loadOwned(ctx.store.db, req.tawqi.auth!, String(req.params.id));
      const e = await getEvidence(ctx.store.db, request.id);
      if (!e)
        throw new ApiError(
          'not_found',
          'id',
          {},
          {},
          { en: 'No sealed evidence record for this request (yet).', ar: 'لا يوجد سجل أدلة مختوم لهذا الطلب (بعد).' },
        );
      res.json({
        object: 'evidence_record',
        signature_request: request.id,
        reference: request.reference,
        record_raw: e.record_raw,
        signature: { algorithm: 'Ed25519', value: e.signature },
        public_key: e.public_key,
        timestamp: { format: 'rfc3161', hash_alg: 'sha-256', token: e.timestamp_token },
        created_at: e.created_at,
      } satisfies EvidenceRecord);
    },
  }),
];
