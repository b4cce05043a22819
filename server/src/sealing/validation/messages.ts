/** What each indication means, in Arabic and English: data only (the report picks one language). */
import type { Indication, SubIndication } from './types.js';

export type Lang = 'ar' | 'en';

export const VERDICTS: Record<Indication | SubIndication, Record<Lang, string>> = {
  'TOTAL-PASSED': {
    ar: 'التوقيع سليم: البايتات الموقعة لم تتغير، والشهادة تتصل بجهة ثقة، ولم يُعدَّل المستند بعد التوقيع.',
    en: 'The signature is valid: the signed bytes are unchanged, the certificate chains to a trust anchor, and the document was not modified after signing.',
  },
  INDETERMINATE: {
    ar: 'تعذّر الحكم على التوقيع بالمعطيات المتوفرة.',
    en: 'The signature could not be judged with the data available.',
  },
  'TOTAL-FAILED': {
    ar: 'التوقيع غير صالح.',
    en: 'The signature is not valid.',
  },
  FORMAT_FAILURE: {
    ar: 'بنية التوقيع غير صحيحة: نطاق البايتات أو رسالة CMS غير مقروءة أو لا تغطي مراجعتها كاملة.',
    en: 'The signature is malformed: its ByteRange or CMS is unreadable or does not cover its whole revision.',
  },
  HASH_FAILURE: {
    ar: 'تغيّرت البايتات الموقعة: البصمة لا تطابق ما وُقِّع.',
    en: 'The signed bytes changed: their digest does not match what was signed.',
  },
  SIG_CRYPTO_FAILURE: {
    ar: 'لا تتحقق قيمة التوقيع بالمفتاح العام لشهادة الموقِّع.',
    en: "The signature value does not verify with the signer's public key.",
  },
  REVOKED: {
    ar: 'شهادة الموقِّع ملغاة.',
    en: "The signer's certificate is revoked.",
  },
  MODIFIED_AFTER_SIGNING: {
    ar: 'عُدِّل المستند بعد التوقيع بما لا يُسمح به (غير بيانات التحقق والأختام الزمنية والتوقيعات اللاحقة).',
    en: 'The document was modified after signing beyond what is allowed (validation data, document timestamps, later signatures).',
  },
  NO_CERTIFICATE_CHAIN_FOUND: {
    ar: 'لا تتصل شهادة الموقِّع بأي جهة ثقة معروفة.',
    en: "The signer's certificate does not chain to any known trust anchor.",
  },
  NO_SIGNING_CERTIFICATE_FOUND: {
    ar: 'شهادة الموقِّع غير موجودة في التوقيع.',
    en: "The signer's certificate is not in the signature.",
  },
  OUT_OF_BOUNDS_NO_POE: {
    ar: 'لم تكن الشهادة سارية وقت التوقيع (أو الآن، إن لم يوجد ختم زمني).',
    en: 'The certificate was not valid at signing time (or now, when there is no timestamp).',
  },
  NO_SIGNATURE_FOUND: {
    ar: 'لا يحتوي الملف على أي توقيع أو ختم زمني.',
    en: 'The file holds no signature or timestamp.',
  },
};

export function verdict(indication: Indication, sub: SubIndication | null, lang: Lang): string {
  return sub ? `${VERDICTS[indication][lang]} ${VERDICTS[sub][lang]}` : VERDICTS[indication][lang];
}
