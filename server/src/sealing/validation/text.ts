/** A report as readable text lines (the CLI's output without --json), in the report's language. */
import { LABELS } from './messages.js';
import { readableName } from './names.js';
import type { SignatureReport, ValidationReport } from './types.js';

type Label = keyof typeof LABELS;

function signatureLines(sig: SignatureReport, index: number, l: (key: Label) => string): string[] {
  const yesNo = (value: boolean) => l(value ? 'yes' : 'no');
  const chain = sig.chain?.certificates.map((c) => readableName(c.subject)).join(' → ') ?? l('none');
  const { integrity: i, revocation: r, modifications: m } = sig;
  return [
    '',
    `${index + 1}. ${l(sig.kind)} — ${l('field')}: ${sig.fieldName ?? l('none')}, ${l('revision')} ${sig.revision}`,
    `   ${l('indication')}: ${sig.indication}${sig.subIndication ? ` / ${sig.subIndication}` : ''}`,
    `   ${sig.message}`,
    `   ${l('signer')}: ${sig.signer ?? l('none')}`,
    `   ${l('level')}: ${sig.level ?? '—'}`,
    `   ${l('signingTime')}: ${sig.signingTime ?? l('none')}${sig.timestamp ? ` (${l('timestampBy')} ${sig.timestamp.tsa})` : ''}`,
    `   ${l('claimedTime')}: ${sig.claimedTime ?? l('none')}`,
    `   ${l('chain')}: ${chain}`,
    `   ${l('trustAnchor')}: ${sig.chain?.trustAnchor ? readableName(sig.chain.trustAnchor) : l('none')}`,
    `   ${l('integrity')}: ${l('byteRange')} ${yesNo(i.byteRangeCoversRevision)}; ${l('digest')} ${yesNo(i.digestMatches)}; ${l('cryptoSignature')} ${yesNo(i.signatureValid)}`,
    `   ${l('revocation')}: ${l('dss')} ${r.dssCrls} CRL, ${r.dssOcsps} OCSP; ${l('inCms')} ${r.cmsCrls} CRL; ${l('revoked')}: ${yesNo(r.signerRevoked)}; ${l('revokedCas')}: ${r.revokedCas.length > 0 ? r.revokedCas.map(readableName).join(', ') : l('none')}; ${l('ignored')}: ${r.ignoredCrls} CRL, ${r.ignoredOcsps} OCSP`,
    `   ${l('modifications')}: ${m.disallowed.length > 0 ? m.disallowed.join('; ') : l('none')} (${l('laterRevisions')}: ${m.laterRevisions})`,
  ];
}

export function reportText(report: ValidationReport): string[] {
  const l = (key: Label): string => LABELS[key][report.lang];
  return [
    `${l('overall')}: ${report.indication}${report.subIndication ? ` / ${report.subIndication}` : ''}`,
    report.message,
    `${l('revisions')}: ${report.revisions}`,
    ...report.signatures.flatMap((sig, i) => signatureLines(sig, i, l)),
  ];
}
