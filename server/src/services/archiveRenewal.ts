import { createHash } from 'node:crypto';
import type { ServiceContext } from '../context.js';
import { sealedPdfKey } from '../domain/fileKeys.js';
import type { DueQueue } from '../retry.js';
import { lastDocumentTimestamp, type EmbeddedTimestamp } from '../sealing/pades/index.js';
import { renewArchiveTimestamp } from '../sealing/seal.js';
import { claimArchive, dueArchives, updateSealedDocument, type SealedDocument } from '../store/sealing.js';
import { periodicSweep } from './periodicSweep.js';

/** How often the job looks for due archives. */
const SWEEP_EVERY_SECONDS = 3600;
/** Archives renewed per look (each is a TSA request and a file write). */
const BATCH = 20;
/** A failed renewal, or one that would not have outlived the current timestamp, is tried again after this. */
const RETRY_AFTER_SECONDS = 86400;

/**
 * PAdES B-LTA archive renewal (TAWQI_ARCHIVE_RENEW_DAYS), run by the job runner: once an hour by
 * the injected clock, the sealed pades-lt PDFs whose last document timestamp's TSA certificate ends
 * within the window get a /DSS with that timestamp's validation data and a new document timestamp
 * (sealing/seal.ts renewArchiveTimestamp), stored back over the file (ctx.files.put is atomic on
 * every backend); pdf_sha256 follows the file. No event: the document is the same, its proof longer.
 */
export function archiveRenewal(): DueQueue {
  return periodicSweep(SWEEP_EVERY_SECONDS, async (ctx, now, turn) => {
    const until = now + ctx.config.TAWQI_ARCHIVE_RENEW_DAYS * 86400;
    const due = await dueArchives(ctx.store.db, until, now, BATCH);
    for (const doc of due) {
      if (!turn.mayStart()) return true;
      await renewArchive(ctx, doc, now, until);
    }
    return due.length === BATCH; // more may be due: the next look goes on
  });
}

async function renewArchive(ctx: ServiceContext, doc: SealedDocument, now: number, until: number): Promise<void> {
  const requestId = doc.signature_request_id;
  // Another process sharing the database may be renewing it; a crash frees it after the lease.
  if (!(await claimArchive(ctx.store.db, requestId, now, now + SWEEP_EVERY_SECONDS))) return;
  try {
    const renewed = await renewedFile(ctx, requestId, until);
    if (!renewed) {
      ctx.log.warn({ signature_request_id: requestId }, 'archive renewal: the TSA certificate is not newer; tried again tomorrow');
      await updateSealedDocument(ctx.store.db, requestId, { archive_retry_at: now + RETRY_AFTER_SECONDS });
      return;
    }
    const sha256 = createHash('sha256').update(renewed.pdf).digest('hex');
    await updateSealedDocument(ctx.store.db, requestId, {
      pdf_sha256: sha256,
      earlier_pdf_sha256: JSON.stringify(withEarlier(doc, sha256)),
      timestamp_expires_at: Math.floor(renewed.last.notAfter.getTime() / 1000),
      archive_retry_at: null,
    });
    ctx.log.info(
      { signature_request_id: requestId, until: renewed.last.notAfter.toISOString() },
      'archive renewal: new document timestamp',
    );
  } catch (err) {
    ctx.log.error({ signature_request_id: requestId, err: String(err) }, 'archive renewal failed; tried again tomorrow');
    await updateSealedDocument(ctx.store.db, requestId, { archive_retry_at: now + RETRY_AFTER_SECONDS });
  }
}

/** The earlier hashes after the file became `current`: the one it had is added (once). */
function withEarlier(doc: SealedDocument, current: string): string[] {
  const earlier = JSON.parse(doc.earlier_pdf_sha256) as string[];
  return doc.pdf_sha256 && doc.pdf_sha256 !== current && !earlier.includes(doc.pdf_sha256) ? [...earlier, doc.pdf_sha256] : earlier;
}

/**
 * The stored file with a new document timestamp, stored back; null when the TSA's certificate would
 * not outlive the current one. A file already renewed (a renewal that stored it and crashed before
 * recording it) is taken as it is.
 */
async function renewedFile(
  ctx: ServiceContext,
  requestId: string,
  until: number,
): Promise<{ pdf: Uint8Array; last: EmbeddedTimestamp } | null> {
  const key = sealedPdfKey(requestId);
  const stored = await ctx.files.get(key);
  if (!stored) throw new Error(`the sealed PDF ${key} is missing`);
  const pdf = new Uint8Array(stored);
  const last = lastDocumentTimestamp(pdf);
  if (!last) throw new Error(`the sealed PDF ${key} has no document timestamp`);
  if (last.notAfter.getTime() / 1000 > until) return { pdf, last };
  const renewed = await renewArchiveTimestamp(ctx.pki, pdf);
  const next = lastDocumentTimestamp(renewed)!;
  if (next.notAfter.getTime() <= last.notAfter.getTime()) return null;
  await ctx.files.put(key, renewed);
  return { pdf: renewed, last: next };
}
