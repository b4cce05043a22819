/**
 * Validates every signature and document timestamp of a PDF against a set of trust anchors, in the
 * manner of ETSI EN 319 102-1: integrity (ByteRange, digest, signature), the certificate chain to an
 * anchor at the time the timestamp proves, revocation, the PAdES level reached, and modifications
 * after signing. Bytes and anchors in, a report out: no store, no network.
 */
import 'reflect-metadata';
import type { X509Certificate } from 'node:crypto';
import { OID_KP_TIME_STAMPING } from '@tawqi/shared/cms';
import type { PDFDocument } from 'pdf-lib';
import { buildChain, certificateSha256, parseCertificates, signerName } from './chain.js';
import { checkCms, readTstInfo, type CmsCheck } from './cms.js';
import { readDss, type DssContent } from './dss.js';
import { verdict, type Lang } from './messages.js';
import { disallowedChanges } from './modifications.js';
import { checkRevocation, type RevocationFinding } from './revocation.js';
import { findSignatures, loadRevision, readByteRange, revisionEnds, type FoundSignature, type SignedRange } from './revisions.js';
import type { ChainReport, Indication, Level, SignatureReport, SubIndication, TimestampReport, ValidationReport } from './types.js';

/** The largest PDF the validator reads (the page's and the CLI's limit). */
export const MAX_PDF_BYTES = 25 * 1024 * 1024;

export class ValidationInputError extends Error {
  constructor(
    readonly code: 'too_large' | 'not_pdf',
    message: string,
  ) {
    super(message);
    this.name = 'ValidationInputError';
  }
}

export interface ValidateOptions {
  /** DER certificates trusted as anchors. */
  trustAnchors: readonly Uint8Array[];
  /** The time to validate at when nothing proves an earlier one. */
  now: Date;
  lang: Lang;
}

/** Everything about the file every signature's checks share. */
interface FileContext {
  pdf: Uint8Array;
  ends: number[];
  revision: (index: number) => Promise<PDFDocument>;
  /** The /DSS as of each revision. */
  dssAt: (index: number) => Promise<DssContent>;
  dss: DssContent;
  dssCertificates: X509Certificate[];
  anchors: X509Certificate[];
  options: ValidateOptions;
}

async function openFile(pdf: Uint8Array, options: ValidateOptions): Promise<{ file: FileContext; found: FoundSignature[] }> {
  if (pdf.byteLength > MAX_PDF_BYTES) throw new ValidationInputError('too_large', `the PDF is larger than ${MAX_PDF_BYTES} bytes`);
  if (!Buffer.from(pdf.subarray(0, 1024)).toString('latin1').includes('%PDF-')) throw new ValidationInputError('not_pdf', 'not a PDF file');
  const ends = revisionEnds(pdf);
  const cache = new Map<number, Promise<PDFDocument>>();
  const revision = (index: number) => {
    if (!cache.has(index)) cache.set(index, loadRevision(pdf, ends[index]!));
    return cache.get(index)!;
  };
  const final = await revision(ends.length - 1).catch((err: Error) => {
    throw new ValidationInputError('not_pdf', `not a readable PDF: ${err.message}`);
  });
  const dss = readDss(final);
  const dssAt = (index: number) => revision(index).then(readDss, () => readDss(final));
  const file = {
    pdf,
    ends,
    revision,
    dssAt,
    dss,
    dssCertificates: parseCertificates(dss.certificates),
  };
  return { file: { ...file, anchors: parseCertificates(options.trustAnchors), options }, found: findSignatures(final) };
}

/** What one CMS check found, before the indication is derived from it. */
interface Checked {
  sig: FoundSignature;
  range: SignedRange;
  cms: CmsCheck;
  timestamp: TimestampReport | null;
  digestMatches: boolean;
  signingTime: Date | null;
  chain: ChainReport | null;
}

/** A timestamp counts only from a TSA certificate with the timeStamping extended key usage (RFC 3161 §2.3). */
const isTsa = (cert: X509Certificate | null): boolean => (cert?.keyUsage ?? []).includes(OID_KP_TIME_STAMPING);

/**
 * When a timestamp (or anything in revision `revision`) is proven to have existed: the genTime of the
 * earliest later document timestamp that covers it and is itself trusted, else the validation time
 * (ETSI EN 319 102-1 §5.6.2.3: a TSA's chain is checked at the proof of existence of its token).
 */
type ProofOfExistence = (revision: number) => Date;

function checkTimestamp(token: Uint8Array, stamped: Uint8Array, file: FileContext, poe: Date): TimestampReport {
  const cms = checkCms(token, null, file.dssCertificates);
  const tst = readTstInfo(cms.content, stamped);
  const pool = [...cms.certificates, ...file.dssCertificates];
  return {
    genTime: tst.genTime.toISOString(),
    tsa: cms.signer ? signerName(cms.signer) : '',
    imprintMatches: tst.imprintMatches && cms.digestMatches,
    signatureValid: cms.signatureValid && isTsa(cms.signer),
    chain: cms.signer
      ? buildChain(cms.signer, pool, file.anchors, poe)
      : { certificates: [], trustAnchor: null, validAtTime: false, checkedAt: poe.toISOString() },
  };
}

function checkOne(sig: FoundSignature, range: SignedRange, file: FileContext, poe: ProofOfExistence): Checked {
  const isTimestamp = sig.kind === 'document-timestamp';
  const cms = checkCms(range.cms, isTimestamp ? null : range.signed, file.dssCertificates);
  const pool = [...cms.certificates, ...file.dssCertificates];
  if (isTimestamp) {
    cms.signatureValid = cms.signatureValid && isTsa(cms.signer);
    const tst = readTstInfo(cms.content, range.signed);
    const digestMatches = cms.digestMatches && tst.imprintMatches;
    const chain = cms.signer ? buildChain(cms.signer, pool, file.anchors, poe(range.revision)) : null;
    return { sig, range, cms, timestamp: null, digestMatches, signingTime: tst.genTime, chain };
  }
  // The signature-time-stamp sits in the signature's own revision: a later document timestamp proves it.
  const timestamp = cms.timestampToken ? checkTimestamp(cms.timestampToken, cms.signatureValue, file, poe(range.revision)) : null;
  const signingTime = timestamp ? new Date(timestamp.genTime) : null;
  const chain = cms.signer ? buildChain(cms.signer, pool, file.anchors, signingTime ?? file.options.now) : null;
  return { sig, range, cms, timestamp, digestMatches: cms.digestMatches, signingTime, chain };
}

/** A document timestamp that proves the existence of what it covers: intact, verifying, from a TSA chained and valid at its own proof. */
const proves = (checked: Checked): boolean =>
  checked.sig.kind === 'document-timestamp' &&
  checked.range.coversRevision &&
  checked.digestMatches &&
  checked.cms.signatureValid &&
  !!checked.chain?.trustAnchor &&
  checked.chain.validAtTime;

/**
 * Checks every readable signature, the latest revision first, so that each document timestamp is
 * judged before the earlier timestamps whose existence it proves.
 */
function checkAll(
  found: FoundSignature[],
  pdf: Uint8Array,
  file: FileContext,
): { checked: Checked[]; failed: Map<FoundSignature, SignatureReport> } {
  const ranges = new Map(found.map((sig) => [sig, readByteRange(pdf, sig.byteRange, file.ends)] as const));
  const latestFirst = [...found].sort((a, b) => (ranges.get(b)?.revision ?? -1) - (ranges.get(a)?.revision ?? -1));
  const proofs: { revision: number; time: Date }[] = [];
  const poe: ProofOfExistence = (revision) =>
    proofs
      .filter((p) => p.revision > revision)
      .map((p) => p.time)
      .reduce((a, b) => (b < a ? b : a), file.options.now);
  const checked: Checked[] = [];
  const failed = new Map<FoundSignature, SignatureReport>();
  for (const sig of latestFirst) {
    const range = ranges.get(sig);
    try {
      if (!range) throw new Error('unreadable ByteRange');
      const one = checkOne(sig, range, file, poe);
      checked.push(one);
      if (proves(one)) proofs.push({ revision: range.revision, time: one.signingTime! });
    } catch {
      // An unreadable ByteRange or CMS is itself the finding: FORMAT_FAILURE.
      failed.set(sig, unreadable(sig, range?.revision ?? -1, file.options.lang));
    }
  }
  return { checked, failed };
}

/** Every certificate an issuer of the signer may be found among: the CMS's, the /DSS's, the anchors. */
const certificatePool = (checked: Checked, file: FileContext): X509Certificate[] => [
  ...checked.cms.certificates,
  ...file.dssCertificates,
  ...file.anchors,
];

/** What the final /DSS's authenticated revocation data says about the signer at the time of signing. */
async function signerRevocation(checked: Checked, file: FileContext): Promise<RevocationFinding | null> {
  if (!checked.cms.signer) return null;
  const at = (checked.signingTime ?? file.options.now).getTime();
  return checkRevocation(checked.cms.signer, certificatePool(checked, file), file.dss, at);
}

/**
 * The CA certificates on the signer's path (chain.ts, below its trust anchor) that the final
 * /DSS's authenticated revocation data says were revoked at or before the signing time. The
 * anchor itself is trusted by configuration, not by revocation data.
 */
async function revokedCasOnPath(checked: Checked, file: FileContext): Promise<string[]> {
  const path = checked.chain?.certificates ?? [];
  if (path.length < 2) return [];
  const pool = certificatePool(checked, file);
  const anchors = new Set(file.anchors.map(certificateSha256));
  const at = (checked.signingTime ?? file.options.now).getTime();
  const revoked: string[] = [];
  for (const info of path.slice(1)) {
    if (anchors.has(info.sha256)) continue;
    const cert = pool.find((c) => certificateSha256(c) === info.sha256);
    if (!cert) continue;
    if ((await checkRevocation(cert, pool, file.dss, at)).revoked) revoked.push(info.subject);
  }
  return revoked;
}

/** The first revision after the signature whose /DSS holds the signer's certificate and authenticated revocation data about it. */
async function ltRevision(checked: Checked, file: FileContext): Promise<number | null> {
  const signer = checked.cms.signer;
  if (!signer) return null;
  const at = (checked.signingTime ?? file.options.now).getTime();
  for (let i = checked.range.revision + 1; i < file.ends.length; i += 1) {
    const dss = await file.dssAt(i);
    const hasSigner = dss.certificates.some((der) => Buffer.from(der).equals(signer.raw));
    if (hasSigner && (await checkRevocation(signer, certificatePool(checked, file), dss, at)).authentic > 0) return i;
  }
  return null;
}

async function levelOf(checked: Checked, all: Checked[], file: FileContext): Promise<Level | null> {
  if (checked.sig.kind === 'document-timestamp') return null;
  if (!checked.timestamp?.imprintMatches || !checked.timestamp.signatureValid) return 'B-B';
  const lt = await ltRevision(checked, file);
  if (lt === null) return 'B-T';
  const archived = all.some(
    (t) => t.sig.kind === 'document-timestamp' && t.range.revision >= lt && t.digestMatches && t.cms.signatureValid,
  );
  return archived ? 'B-LTA' : 'B-LT';
}

type Verdict = [Indication, SubIndication | null];

function indicationOf(checked: Checked, disallowed: string[], revoked: boolean, revokedCas: readonly string[]): Verdict {
  const { range, cms, timestamp, chain } = checked;
  if (!range.coversRevision) return ['TOTAL-FAILED', 'FORMAT_FAILURE'];
  if (!checked.digestMatches || (timestamp && !timestamp.imprintMatches)) return ['TOTAL-FAILED', 'HASH_FAILURE'];
  // A signer (or a signature-time-stamp's TSA) whose certificate is neither in its CMS nor in the /DSS: nothing to verify with.
  if (!cms.signer || !chain || (timestamp && timestamp.chain.certificates.length === 0))
    return ['INDETERMINATE', 'NO_SIGNING_CERTIFICATE_FOUND'];
  if (!cms.signatureValid || (timestamp && !timestamp.signatureValid)) return ['TOTAL-FAILED', 'SIG_CRYPTO_FAILURE'];
  if (disallowed.length > 0) return ['TOTAL-FAILED', 'MODIFIED_AFTER_SIGNING'];
  if (revoked) return ['TOTAL-FAILED', 'REVOKED'];
  // EN 319 102-1 §5.2.6: a revoked CA on the path, without proof the signature existed before it.
  if (revokedCas.length > 0) return ['INDETERMINATE', 'REVOKED_CA_NO_POE'];
  if (!chain.trustAnchor || (timestamp && !timestamp.chain.trustAnchor)) return ['INDETERMINATE', 'NO_CERTIFICATE_CHAIN_FOUND'];
  if (!chain.validAtTime || (timestamp && !timestamp.chain.validAtTime)) return ['INDETERMINATE', 'OUT_OF_BOUNDS_NO_POE'];
  return ['TOTAL-PASSED', null];
}

async function modificationsAfter(revision: number, file: FileContext): Promise<string[]> {
  if (revision >= file.ends.length - 1) return [];
  return disallowedChanges(await file.revision(revision), await file.revision(file.ends.length - 1));
}

/** The report of a signature whose ByteRange or CMS cannot even be read. */
function unreadable(sig: FoundSignature, revision: number, lang: Lang): SignatureReport {
  return {
    kind: sig.kind,
    fieldName: sig.fieldName,
    subFilter: sig.subFilter,
    signer: null,
    revision: revision + 1,
    claimedTime: sig.claimedTime,
    signingTime: null,
    level: null,
    integrity: { byteRangeCoversRevision: false, digestMatches: false, signatureValid: false },
    chain: null,
    timestamp: null,
    revocation: { dssCrls: 0, dssOcsps: 0, cmsCrls: 0, signerRevoked: false, revokedCas: [], ignoredCrls: 0, ignoredOcsps: 0 },
    modifications: { laterRevisions: 0, disallowed: [] },
    indication: 'TOTAL-FAILED',
    subIndication: 'FORMAT_FAILURE',
    message: verdict('TOTAL-FAILED', 'FORMAT_FAILURE', lang),
  };
}

async function report(checked: Checked, all: Checked[], file: FileContext): Promise<SignatureReport> {
  const { sig, range, cms } = checked;
  const disallowed = await modificationsAfter(range.revision, file);
  const revocation = await signerRevocation(checked, file);
  const revoked = revocation?.revoked ?? false;
  const revokedCas = await revokedCasOnPath(checked, file);
  const [indication, subIndication] = indicationOf(checked, disallowed, revoked, revokedCas);
  return {
    kind: sig.kind,
    fieldName: sig.fieldName,
    subFilter: sig.subFilter,
    signer: cms.signer ? signerName(cms.signer) : null,
    revision: range.revision + 1,
    claimedTime: sig.claimedTime,
    signingTime: checked.signingTime?.toISOString() ?? null,
    level: await levelOf(checked, all, file),
    integrity: { byteRangeCoversRevision: range.coversRevision, digestMatches: checked.digestMatches, signatureValid: cms.signatureValid },
    chain: checked.chain,
    timestamp: checked.timestamp,
    revocation: {
      dssCrls: file.dss.crls.length,
      dssOcsps: file.dss.ocsps.length,
      cmsCrls: cms.crls,
      signerRevoked: revoked,
      revokedCas,
      ignoredCrls: revocation?.ignoredCrls ?? 0,
      ignoredOcsps: revocation?.ignoredOcsps ?? 0,
    },
    modifications: { laterRevisions: file.ends.length - 1 - Math.max(range.revision, 0), disallowed },
    indication,
    subIndication,
    message: verdict(indication, subIndication, file.options.lang),
  };
}

const SEVERITY: Record<Indication, number> = { 'TOTAL-PASSED': 0, INDETERMINATE: 1, 'TOTAL-FAILED': 2 };

function overall(signatures: SignatureReport[]): Verdict {
  if (signatures.length === 0) return ['INDETERMINATE', 'NO_SIGNATURE_FOUND'];
  const worst = signatures.reduce((a, b) => (SEVERITY[b.indication] > SEVERITY[a.indication] ? b : a));
  return [worst.indication, worst.subIndication];
}

/** Validates every signature and document timestamp of `pdf`; throws ValidationInputError for a file it cannot read as a PDF. */
export async function validatePdf(pdf: Uint8Array, options: ValidateOptions): Promise<ValidationReport> {
  const { file, found } = await openFile(pdf, options);
  const { checked, failed } = checkAll(found, pdf, file);
  const reports = new Map<FoundSignature, SignatureReport>(failed);
  for (const one of checked) reports.set(one.sig, await report(one, checked, file));
  const signatures = found.map((sig) => reports.get(sig)!);
  const [indication, subIndication] = overall(signatures);
  return {
    version: 1,
    lang: options.lang,
    validatedAt: options.now.toISOString(),
    revisions: file.ends.length,
    signatures,
    indication,
    subIndication,
    message: verdict(indication, subIndication, options.lang),
  };
}
