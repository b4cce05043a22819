/**
 * The words of the final PDF in Arabic and English, and how times are written.
 *
 * Times are UTC, written "2026-07-01 09:00:05 UTC" with Western digits in both languages (the
 * digits used across the Arabic UI and in contracts; they also read the same to every verifier).
 * Labels are written without optional diacritics (harakat), as Arabic interface text usually is.
 */
import type { FinalDocumentInput, SignerOnDocument } from '../types.js';

export interface Labels {
  readonly language: 'ar' | 'en';
  readonly rtl: boolean;
  page(n: number, total: number): string;
  readonly sealedBy: string;
  readonly reference: string;
  readonly sender: string;
  readonly completed: string;
  readonly signatures: string;
  readonly signedAt: string;
  readonly drawnSignature: string;
  readonly tokenSignature: string;
  readonly imageUnreadable: string;
  readonly testBanner: string;
  readonly watermark: string;
  readonly none: string;
  readonly certificate: {
    readonly title: string;
    readonly intro: string;
    readonly requestId: string;
    readonly documentTitle: string;
    readonly legalLevel: string;
    readonly levels: Record<FinalDocumentInput['legal_level'], string>;
    readonly format: string;
    readonly mode: string;
    readonly live: string;
    readonly test: string;
    readonly created: string;
    readonly hash: string;
    readonly verification: string;
    readonly signers: string;
    readonly columns: {
      order: string;
      name: string;
      contact: string;
      method: string;
      signedAt: string;
      ip: string;
      userAgent: string;
      identity: string;
    };
    readonly methods: Record<SignerOnDocument['method'], string>;
    readonly identity: Record<string, string>;
    readonly nameMatch: Record<string, string>;
    readonly nameMatchLabel: string;
    readonly notRequired: string;
    readonly trail: string;
    readonly trailColumns: { time: string; event: string; actor: string; ip: string; userAgent: string };
    readonly actors: Record<string, string>;
    readonly truncated: string;
  };
}

const en: Labels = {
  language: 'en',
  rtl: false,
  page: (n, total) => `Page ${n} of ${total}`,
  sealedBy: 'Sealed by Tawqi',
  reference: 'Reference',
  sender: 'Sender',
  completed: 'Completed',
  signatures: 'Signatures',
  signedAt: 'Signed at',
  drawnSignature: 'Drawn signature',
  tokenSignature: 'Signed with a qualified certificate (hardware token)',
  imageUnreadable: 'The signature image could not be read',
  testBanner: 'TEST DOCUMENT — created with a test key; it has no legal effect.',
  watermark: 'TEST — اختبار',
  none: '—',
  certificate: {
    title: 'Certificate of completion',
    intro:
      'This certificate records who signed the document, how and when. The document hash is computed over the document text; the reference can be checked at the verification address.',
    requestId: 'Request ID',
    documentTitle: 'Document title',
    legalLevel: 'Legal level',
    levels: {
      ses: 'Simple electronic signature (SES)',
      aes: 'Advanced electronic signature (AES)',
      qes: 'Qualified electronic signature (QES)',
    },
    format: 'Format',
    mode: 'Mode',
    live: 'Live',
    test: 'Test (no legal effect)',
    created: 'Created',
    hash: 'Document hash (HMAC-SHA256)',
    verification: 'Verification',
    signers: 'Signers',
    columns: {
      order: '#',
      name: 'Name',
      contact: 'Email / phone',
      method: 'Method',
      signedAt: 'Signed at',
      ip: 'IP address',
      userAgent: 'User agent',
      identity: 'Identity',
    },
    methods: { draw: 'Drawn', token: 'Hardware token' },
    identity: {
      not_required: 'Not required',
      required: 'Required',
      in_review: 'In review',
      resubmission_requested: 'Resubmission requested',
      declined: 'Declined',
      match_hold: 'Name match on hold',
      match_rejected: 'Name match rejected',
      approved: 'Verified',
    },
    nameMatch: { match: 'match', mismatch: 'mismatch (decided by a reviewer)', pending: 'pending' },
    nameMatchLabel: 'name',
    notRequired: 'Not required',
    trail: 'Event trail',
    trailColumns: { time: 'Time', event: 'Event', actor: 'Actor', ip: 'IP address', userAgent: 'User agent' },
    actors: { system: 'System', sender: 'Sender', signer: 'Signer' },
    truncated: '…',
  },
};

const ar: Labels = {
  language: 'ar',
  rtl: true,
  page: (n, total) => `صفحة ${n} من ${total}`,
  sealedBy: 'مختوم بواسطة Tawqi',
  reference: 'المرجع',
  sender: 'المرسل',
  completed: 'تاريخ الإتمام',
  signatures: 'التوقيعات',
  signedAt: 'وقت التوقيع',
  drawnSignature: 'توقيع مرسوم',
  tokenSignature: 'موقع بشهادة رقمية مؤهلة (رمز أمان مادي)',
  imageUnreadable: 'تعذرت قراءة صورة التوقيع',
  testBanner: 'مستند تجريبي — أنشئ بمفتاح اختبار وليس له أي أثر قانوني.',
  watermark: 'TEST — اختبار',
  none: '—',
  certificate: {
    title: 'شهادة إتمام التوقيع',
    intro: 'تسجل هذه الشهادة من وقع على المستند وكيف ومتى. تحسب بصمة المستند على نص المستند، ويمكن التحقق من المرجع عبر رابط التحقق.',
    requestId: 'معرف الطلب',
    documentTitle: 'عنوان المستند',
    legalLevel: 'المستوى القانوني',
    levels: { ses: 'توقيع إلكتروني بسيط (SES)', aes: 'توقيع إلكتروني متقدم (AES)', qes: 'توقيع إلكتروني مؤهل (QES)' },
    format: 'الصيغة',
    mode: 'الوضع',
    live: 'فعلي',
    test: 'تجريبي (بلا أثر قانوني)',
    created: 'تاريخ الإنشاء',
    hash: 'بصمة المستند (HMAC-SHA256)',
    verification: 'رابط التحقق',
    signers: 'الموقعون',
    columns: {
      order: '#',
      name: 'الاسم',
      contact: 'البريد / الهاتف',
      method: 'الطريقة',
      signedAt: 'وقت التوقيع',
      ip: 'عنوان IP',
      userAgent: 'المتصفح (User agent)',
      identity: 'الهوية',
    },
    methods: { draw: 'توقيع مرسوم', token: 'رمز مادي' },
    identity: {
      not_required: 'غير مطلوب',
      required: 'مطلوب',
      in_review: 'قيد المراجعة',
      resubmission_requested: 'مطلوب إعادة التقديم',
      declined: 'مرفوض',
      match_hold: 'مطابقة الاسم معلقة',
      match_rejected: 'مطابقة الاسم مرفوضة',
      approved: 'تم التحقق',
    },
    nameMatch: { match: 'مطابق', mismatch: 'غير مطابق (بقرار مراجع)', pending: 'قيد الانتظار' },
    nameMatchLabel: 'الاسم',
    notRequired: 'غير مطلوب',
    trail: 'سجل الأحداث',
    trailColumns: { time: 'الوقت', event: 'الحدث', actor: 'المنفذ', ip: 'عنوان IP', userAgent: 'المتصفح (User agent)' },
    actors: { system: 'النظام', sender: 'المرسل', signer: 'موقع' },
    truncated: '…',
  },
};

export function labelsFor(language: 'ar' | 'en'): Labels {
  return language === 'ar' ? ar : en;
}

/**
 * Text that must read left to right inside any line (a time, an id), as a left-to-right isolate:
 * in Arabic text, "2026-07-01 09:00" would otherwise show its parts in right-to-left order (bidi
 * rule W2 turns the digits after Arabic letters into Arabic numbers, which hyphens do not join).
 */
export function ltr(text: string): string {
  return `\u2066${text}\u2069`;
}

/** "2026-07-01 09:00:05 UTC" for Unix seconds ("—" for a value no date can have). */
export function formatUtc(seconds: number): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return '—';
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
