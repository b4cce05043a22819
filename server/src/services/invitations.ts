import type { Language } from '@tawqi/shared';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';

/**
 * Invitation and reminder texts, Arabic or English after the request's language. The signing link
 * is not stored in the message: `{{signing_url}}` is filled in by the delivery job at send time.
 * Test-mode messages carry [TEST] in the subject and a notice in the body (spec part 5).
 */
export const LINK_PLACEHOLDER = '{{signing_url}}';

const TEXTS: Record<Language, { invite: (t: string) => string; remind: (t: string) => string; hello: (n: string) => string; body: (t: string) => string; notice: string; access: string }> = {
  ar: {
    invite: (t) => `طلب توقيع: ${t}`,
    remind: (t) => `تذكير بطلب التوقيع: ${t}`,
    hello: (n) => `مرحبًا ${n}،`,
    body: (t) => `يُرجى مراجعة المستند «${t}» وتوقيعه عبر الرابط التالي:`,
    notice: 'هذه رسالة اختبار: المستند لا يحمل أي أثر قانوني.',
    access: 'سيُطلب منك رمز الدخول الذي أرسله إليك المرسل بطريقة أخرى.',
  },
  en: {
    invite: (t) => `Signature request: ${t}`,
    remind: (t) => `Reminder — signature request: ${t}`,
    hello: (n) => `Hello ${n},`,
    body: (t) => `Please review and sign “${t}” at this link:`,
    notice: 'This is a test message: the document has no legal effect.',
    access: 'You will be asked for the access code the sender gave you separately.',
  },
};

export function invitationMessage(r: SignatureRequestRecord, s: SignerRecord, kind: 'invitation' | 'reminder'): { subject: string; body: string } {
  const t = TEXTS[r.language];
  const subject = (r.livemode ? '' : '[TEST] ') + (kind === 'invitation' ? t.invite(r.title) : t.remind(r.title));
  const lines = [t.hello(s.name), '', t.body(r.title), LINK_PLACEHOLDER];
  if (s.access_code_hash) lines.push('', t.access);
  if (!r.livemode) lines.push('', t.notice);
  return { subject, body: lines.join('\n') };
}

const OTP_TEXTS: Record<Language, { subject: (t: string) => string; body: (code: string) => string; expiry: string }> = {
  ar: { subject: (t) => `رمز التحقق لتوقيع: ${t}`, body: (c) => `رمز التحقق الخاص بك: ${c}`, expiry: 'صالح لمدة 10 دقائق. لا تشاركه مع أحد.' },
  en: { subject: (t) => `Your code to sign: ${t}`, body: (c) => `Your verification code: ${c}`, expiry: 'It is valid for 10 minutes. Do not share it.' },
};

/** The one-time code message; its body is scrubbed after SMTP delivery so no code stays stored. */
export function otpMessage(r: SignatureRequestRecord, code: string): { subject: string; body: string } {
  const t = OTP_TEXTS[r.language];
  const subject = (r.livemode ? '' : '[TEST] ') + t.subject(r.title);
  const lines = [t.body(code), '', t.expiry];
  if (!r.livemode) lines.push('', TEXTS[r.language].notice);
  return { subject, body: lines.join('\n') };
}
