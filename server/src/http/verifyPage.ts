import express, { type Request, type Response } from 'express';
import { escapeHtml as esc } from '../sealing/html.js';
import { verificationFor } from '../services/verification.js';
import type { AppContext } from './context.js';

const when = (t: number | null): string => (t === null ? '—' : new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

const TEXT = {
  ar: {
    title: 'التحقق من مستند',
    found: 'المستند موجود',
    notFound: 'لا يوجد مستند بهذا المرجع.',
    reference: 'المرجع',
    status: 'الحالة',
    integrity: 'سلامة المستند',
    intact: 'سليم: النص المحفوظ لم يتغير منذ الختم',
    modified: 'معدَّل: النص المحفوظ لا يطابق البصمة المختومة',
    unknown: 'غير معروف: تعذّر التحقق',
    docTitle: 'العنوان',
    level: 'المستوى القانوني',
    format: 'الصيغة',
    hash: 'البصمة (hmac-sha256)',
    pdf: 'بصمة ملف PDF (sha256)',
    parties: 'الأطراف',
    completed: 'تاريخ الإتمام',
    test: 'هذا مستند اختبار ولا أثر قانوني له.',
    trust: 'يُختم المستند بشهادة مدمجة في هذا الخادم، وهي ليست شهادة موثوقة علنًا.',
  },
  en: {
    title: 'Document verification',
    found: 'Document found',
    notFound: 'No document has this reference.',
    reference: 'Reference',
    status: 'Status',
    integrity: 'Integrity',
    intact: 'Intact: the stored text is unchanged since sealing',
    modified: 'Modified: the stored text no longer matches the sealed hash',
    unknown: 'Unknown: could not be checked',
    docTitle: 'Title',
    level: 'Legal level',
    format: 'Format',
    hash: 'Hash (hmac-sha256)',
    pdf: 'PDF file hash (sha256)',
    parties: 'Parties',
    completed: 'Completed',
    test: 'This is a test document with no legal effect.',
    trust: 'Documents are sealed with a certificate built into this server; it is not publicly trusted.',
  },
};

/** The public verification page at /verify/{reference}: the same facts as GET /verifications/{reference}, in Arabic and English. */
export function verifyPageRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.get('/verify/:reference', async (req: Request, res: Response) => {
    const lang = req.tawqi.lang;
    const t = TEXT[lang];
    const v = await verificationFor(ctx, ctx.store.db, String(req.params.reference));
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const other = lang === 'ar' ? 'en' : 'ar';
    const head = `<!doctype html><html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${t.title}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.6">
<p><a href="?lang=${other}">${other === 'en' ? 'English' : 'العربية'}</a></p><h1>${t.title}</h1>`;
    if (!v) {
      res.status(404).type('html').send(`${head}<p role="alert">${t.notFound}</p></body></html>`);
      return;
    }
    const row = (k: string, val: string) =>
      `<tr><th scope="row" style="text-align:start;padding-inline-end:1rem">${k}</th><td>${val}</td></tr>`;
    const integrity = t[v.integrity];
    res.type('html').send(`${head}
${v.test ? `<p role="alert" style="border:2px solid #b91c1c;color:#b91c1c;padding:.5rem">${t.test}</p>` : ''}
<p><strong>${t.found}</strong></p>
<table>
${row(t.reference, `<code>${esc(v.reference)}</code>`)}
${row(t.docTitle, esc(v.document.title))}
${row(t.status, esc(v.status))}
${row(t.integrity, `<strong data-integrity="${v.integrity}">${integrity}</strong>`)}
${row(t.level, esc(v.document.legal_level))}
${row(t.format, esc(v.document.format))}
${row(t.completed, when(v.completed_at))}
${row(t.hash, `<code style="word-break:break-all">${esc(v.document.sha256)}</code>`)}
${row(t.pdf, v.document.pdf_sha256 ? `<code style="word-break:break-all">${esc(v.document.pdf_sha256)}</code>` : '—')}
${row(t.parties, v.parties.map((p) => esc(p.name)).join('، '))}
</table>
<p><small>${t.trust}</small></p>
</body></html>`);
  });
  return router;
}
