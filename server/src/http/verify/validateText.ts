/** The strings of the signature validator page (/verify), in Arabic and English (the report's own labels are in sealing/validation). */
import type { Language } from '@tawqi/shared';

export const VALIDATE_TEXT: Record<
  Language,
  Record<'title' | 'body' | 'choose' | 'drop' | 'privacy' | 'needsScript' | 'check' | 'checking' | 'failed' | 'limit', string>
> = {
  ar: {
    title: 'التحقق من توقيعات ملف PDF',
    body: 'اختر ملف PDF موقَّعًا أو أفلته هنا: نفحص كل توقيع وختم زمني فيه — الموقِّع، وسلسلة الشهادات وجهة الثقة، ووقت التوقيع، والمستوى (B-B إلى B-LTA)، وسلامة البايتات، وبيانات الإلغاء، وأي تعديل بعد التوقيع.',
    choose: 'اختر ملف PDF',
    drop: 'أو أفلت الملف هنا',
    privacy: 'يُرسل الملف إلى هذا الخادم للفحص فقط: لا يُحفظ على القرص ولا في قاعدة البيانات ولا يُسجَّل محتواه.',
    needsScript: 'دون JavaScript: اختر الملف ثم اضغط «افحص» لتُعرض النتيجة في صفحة جديدة؛ أو استخدم الأمر tawqi verify.',
    check: 'افحص',
    checking: 'جارٍ الفحص…',
    failed: 'تعذّر الفحص',
    limit: 'الحد الأقصى لحجم الملف 25 ميغابايت.',
  },
  en: {
    title: 'Validate the signatures of a PDF',
    body: 'Choose or drop a signed PDF: every signature and timestamp in it is checked — the signer, the certificate chain and its trust anchor, the signing time, the level (B-B to B-LTA), the integrity of the signed bytes, revocation data, and any modification after signing.',
    choose: 'Choose a PDF',
    drop: 'or drop the file here',
    privacy:
      'The file is sent to this server only to be checked: it is not written to disk or to the database, and its content is not logged.',
    needsScript: 'Without JavaScript: choose the file, then press Check to see the report on a new page; or use the tawqi verify command.',
    check: 'Check',
    checking: 'Checking…',
    failed: 'The check failed',
    limit: 'Files up to 25 MB.',
  },
};
