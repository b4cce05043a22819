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
  REVOKED_CA_NO_POE: {
    ar: 'شهادة جهة إصدار في سلسلة الموقِّع ملغاة منذ وقت التوقيع أو قبله، فلا يُعتمد على ما أصدرته.',
    en: "A certificate authority on the signer's chain was revoked at or before the signing time, so what it issued cannot be relied on.",
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
    ar: 'شهادة الموقِّع (أو جهة الختم الزمني) ليست في التوقيع ولا في بيانات التحقق (DSS) للملف.',
    en: "The signer's (or the timestamp authority's) certificate is neither in the signature nor in the file's validation data (DSS).",
  },
  OUT_OF_BOUNDS_NO_POE: {
    ar: 'شهادة لم تكن سارية في الوقت الذي تُفحص عنده: شهادة الموقِّع وقت التوقيع (أو الآن، إن لم يوجد ختم زمني)، وشهادة جهة الختم الزمني وقت ختم مستند لاحق يثبت وجود ختمها (أو الآن، إن لم يوجد).',
    en: "A certificate was not valid at the time it is checked at: the signer's at signing time (or now, without a timestamp), a timestamp authority's at the time a later document timestamp proves its token existed (or now, without one).",
  },
  NO_SIGNATURE_FOUND: {
    ar: 'لا يحتوي الملف على أي توقيع أو ختم زمني.',
    en: 'The file holds no signature or timestamp.',
  },
};

export function verdict(indication: Indication, sub: SubIndication | null, lang: Lang): string {
  return sub ? `${VERDICTS[indication][lang]} ${VERDICTS[sub][lang]}` : VERDICTS[indication][lang];
}

/** The labels of a report's fields, for the CLI's text output and the /verify page. */
export const LABELS = {
  overall: { ar: 'النتيجة الإجمالية', en: 'Overall' },
  revisions: { ar: 'المراجعات', en: 'Revisions' },
  signature: { ar: 'توقيع', en: 'Signature' },
  'document-timestamp': { ar: 'ختم زمني للمستند', en: 'Document timestamp' },
  field: { ar: 'الحقل', en: 'Field' },
  revision: { ar: 'المراجعة', en: 'Revision' },
  signer: { ar: 'الموقِّع', en: 'Signer' },
  level: { ar: 'المستوى', en: 'Level' },
  signingTime: { ar: 'وقت التوقيع (من الختم الزمني)', en: 'Signing time (from the timestamp)' },
  claimedTime: { ar: 'الوقت المُدَّعى (/M)', en: 'Claimed time (/M)' },
  chain: { ar: 'سلسلة الشهادات', en: 'Certificate chain' },
  trustAnchor: { ar: 'جهة الثقة', en: 'Trust anchor' },
  integrity: { ar: 'سلامة البايتات الموقعة', en: 'Integrity of the signed bytes' },
  revocation: { ar: 'بيانات الإلغاء', en: 'Revocation data' },
  modifications: { ar: 'تعديلات بعد التوقيع', en: 'Modifications after signing' },
  indication: { ar: 'الحكم', en: 'Indication' },
  none: { ar: 'لا يوجد', en: 'none' },
  yes: { ar: 'نعم', en: 'yes' },
  no: { ar: 'لا', en: 'no' },
  byteRange: { ar: 'النطاق يغطي المراجعة', en: 'ByteRange covers its revision' },
  digest: { ar: 'البصمة مطابقة', en: 'digest matches' },
  cryptoSignature: { ar: 'التوقيع يتحقق', en: 'signature verifies' },
  dss: { ar: 'في DSS', en: 'in the DSS' },
  inCms: { ar: 'داخل CMS', en: 'in the CMS' },
  revoked: { ar: 'شهادة الموقِّع ملغاة', en: 'signer certificate revoked' },
  revokedCas: { ar: 'جهات إصدار ملغاة في السلسلة', en: 'revoked CAs on the chain' },
  ignored: { ar: 'مُهمَلة (غير موقَّعة من مُصدِر الشهادة)', en: "ignored (not signed by the certificate's issuer)" },
  laterRevisions: { ar: 'مراجعات لاحقة', en: 'later revisions' },
  timestampBy: { ar: 'ختم زمني من', en: 'timestamp by' },
} as const satisfies Record<string, Record<Lang, string>>;
