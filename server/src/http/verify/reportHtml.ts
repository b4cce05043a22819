/**
 * A validation report as HTML (the /verify page's result): the overall indication first and
 * prominent, then one card per signature with a description list of its checks. Every value from
 * the file (names, field names, certificate subjects) is escaped and isolated in <bdi>.
 */
import type { Language } from '@tawqi/shared';
import { escapeHtml as esc } from '../../sealing/html.js';
import { LABELS, readableName, type Indication, type SignatureReport, type ValidationReport } from '../../sealing/validation/index.js';

type Label = keyof typeof LABELS;

const TONE: Record<Indication, 'ok' | 'warn' | 'bad'> = { 'TOTAL-PASSED': 'ok', INDETERMINATE: 'warn', 'TOTAL-FAILED': 'bad' };

const code = (text: string): string => `<code dir="ltr">${esc(text)}</code>`;
const verdictOf = (r: { indication: Indication; subIndication: string | null }): string =>
  code(r.subIndication ? `${r.indication} / ${r.subIndication}` : r.indication);
const fact = (label: string, value: string): string => `<div class="fact"><dt>${label}</dt><dd>${value}</dd></div>`;
const time = (iso: string | null, none: string): string => (iso ? `<time datetime="${esc(iso)}" dir="ltr">${esc(iso)}</time>` : none);

/** A certificate's DN as people read it (readableName), the raw DN kept in the JSON report. */
const name = (dn: string): string => `<bdi class="dn" dir="ltr">${esc(readableName(dn))}</bdi>`;

function checks(sig: SignatureReport, l: (key: Label) => string, dir: 'rtl' | 'ltr'): string {
  const yn = (v: boolean) => l(v ? 'yes' : 'no');
  const { integrity: i, revocation: r, modifications: m } = sig;
  // The list takes the page's direction (its numbers at the start of the line); each name, Latin as a
  // rule, is a left-to-right box beside its number (styles.css .chain).
  const chain = sig.chain?.certificates.length
    ? `<ol class="chain" dir="${dir}">${sig.chain.certificates.map((c) => `<li>${name(c.subject)}</li>`).join('')}</ol>`
    : l('none');
  return [
    fact(l('signer'), sig.signer ? `<bdi>${esc(sig.signer)}</bdi>` : l('none')),
    fact(l('level'), sig.level ? code(sig.level) : '—'),
    fact(
      l('signingTime'),
      time(sig.signingTime, l('none')) + (sig.timestamp ? ` (${l('timestampBy')} <bdi>${esc(sig.timestamp.tsa)}</bdi>)` : ''),
    ),
    fact(l('claimedTime'), time(sig.claimedTime, l('none'))),
    fact(l('chain'), chain),
    fact(l('trustAnchor'), sig.chain?.trustAnchor ? name(sig.chain.trustAnchor) : l('none')),
    fact(
      l('integrity'),
      `${l('byteRange')}: ${yn(i.byteRangeCoversRevision)} · ${l('digest')}: ${yn(i.digestMatches)} · ${l('cryptoSignature')}: ${yn(i.signatureValid)}`,
    ),
    fact(
      l('revocation'),
      `${l('dss')}: ${r.dssCrls} CRL, ${r.dssOcsps} OCSP · ${l('inCms')}: ${r.cmsCrls} CRL · ${l('revoked')}: ${yn(r.signerRevoked)} · ${l('revokedCas')}: ${r.revokedCas.length > 0 ? r.revokedCas.map(name).join(dir === 'rtl' ? '، ' : ', ') : l('none')} · ${l('ignored')}: ${r.ignoredCrls} CRL, ${r.ignoredOcsps} OCSP`,
    ),
    fact(
      l('modifications'),
      `${m.disallowed.length > 0 ? `<ul>${m.disallowed.map((d) => `<li dir="ltr">${esc(d)}</li>`).join('')}</ul>` : l('none')} (${l('laterRevisions')}: ${m.laterRevisions})`,
    ),
  ].join('\n');
}

function signatureCard(sig: SignatureReport, index: number, l: (key: Label) => string, dir: 'rtl' | 'ltr'): string {
  const id = `sig-${index + 1}`;
  return `<section class="card tone-${TONE[sig.indication]}" aria-labelledby="${id}" data-indication="${sig.indication}">
<h3 class="subtitle" id="${id}">${index + 1}. ${l(sig.kind)} — <bdi>${esc(sig.fieldName ?? '')}</bdi> (${l('revision')} ${sig.revision})</h3>
<p><strong>${l('indication')}: ${verdictOf(sig)}</strong></p>
<p>${esc(sig.message)}</p>
<dl class="facts">
${checks(sig, l, dir)}
</dl>
</section>`;
}

export function reportHtml(report: ValidationReport, lang: Language): string {
  const l = (key: Label): string => LABELS[key][lang];
  const dir = lang === 'ar' ? 'rtl' : 'ltr';
  return `<section class="card tone-${TONE[report.indication]}" aria-labelledby="overall-title" data-overall="${report.indication}">
<h2 class="title" id="overall-title">${l('overall')}: ${verdictOf(report)}</h2>
<p class="lead">${esc(report.message)}</p>
<p class="hint">${l('revisions')}: ${report.revisions}</p>
</section>
${report.signatures.map((sig, i) => signatureCard(sig, i, l, dir)).join('\n')}`;
}
