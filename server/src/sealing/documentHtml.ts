import { escapeHtml as esc } from './html.js';
import type { FinalDocumentInput } from './types.js';

const when = (t: number): string => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** The final document as a self-contained HTML page (final_document_url), every value escaped. */
export function documentHtml(d: FinalDocumentInput): string {
  const ar = d.language === 'ar';
  const t = ar
    ? { signed: 'وُقّع في', reference: 'المرجع', hash: 'بصمة المستند', test: 'مستند اختبار — لا أثر قانوني له', signers: 'الموقّعون' }
    : { signed: 'Signed at', reference: 'Reference', hash: 'Document hash', test: 'Test document — no legal effect', signers: 'Signers' };
  const signers = d.signers
    .map((s) => {
      const img = s.signature_png
        ? `<img alt="" src="data:image/png;base64,${Buffer.from(s.signature_png).toString('base64')}" style="max-height:80px">`
        : '';
      return `<li><strong>${esc(s.name)}</strong> — ${t.signed} ${when(s.signed_at)}<br>${img}</li>`;
    })
    .join('');
  return `<!doctype html>
<html lang="${d.language}" dir="${ar ? 'rtl' : 'ltr'}"><head><meta charset="utf-8"><title>${esc(d.title)}</title></head>
<body style="font-family:sans-serif;max-width:46rem;margin:2rem auto;line-height:1.6">
${d.livemode ? '' : `<p style="border:2px solid #b91c1c;padding:.5rem;color:#b91c1c">${t.test}</p>`}
<h1>${esc(d.title)}</h1>
<p>${t.reference}: <code>${esc(d.reference)}</code></p>
<div style="white-space:pre-wrap">${esc(d.document_text)}</div>
<h2>${t.signers}</h2><ul>${signers}</ul>
<p><small>${t.hash} (hmac-sha256): <code>${esc(d.document_hash)}</code></small></p>
</body></html>`;
}
