import type { Language } from '@tawqi/shared';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import type { ConsoleRole } from '../domain/consoleRoles.js';
import type { Db } from '../store/db.js';
import { queueMessage } from '../store/messages.js';
import { composeMessage, type Block, type MessageContent } from './messages.js';

/**
 * The console's own emails — a team invitation and a password reset link — built like the request
 * emails (delivery/messages.ts: a text part and blocks, Arabic right to left or English, the
 * account's brand filled in when the mail leaves) and queued in the caller's transaction, so they
 * leave through the outbox only after it commits. Each carries a one-time link whose token is the
 * only copy of the secret (the database keeps its SHA-256): the delivery job scrubs the stored
 * parts once the relay took the mail (deliverMessage.ts), as for one-time codes. Both are live
 * messages (no [TEST] mark, not counted against test-mode email limits): they are about the
 * account's people, not a signature request.
 */
export type ConsoleEmailKind = 'console_invitation' | 'password_reset' | 'security_notice';

/** A security change a user is told about by email, in case it was not them. */
export type SecurityChange = 'password_changed' | 'two_factor_disabled';

interface ConsoleTexts {
  hello: (n: string) => string;
  helloNoName: string;
  fallback: string;
  ignore: string;
  roles: Record<ConsoleRole, string>;
  inviteSubject: (account: string) => string;
  inviteLead: (inviter: string, account: string, role: string) => string;
  inviteButton: string;
  inviteExpiry: string;
  resetSubject: string;
  resetLead: string;
  resetButton: string;
  resetExpiry: string;
  resetIgnore: string;
  noticeSubject: Record<SecurityChange, string>;
  noticeLead: Record<SecurityChange, string>;
  noticeFrom: (ip: string) => string;
  noticeNotYou: string;
  noticeButton: string;
}

const TEXTS: Record<Language, ConsoleTexts> = {
  ar: {
    hello: (n) => `مرحبًا ${n}،`,
    helloNoName: 'مرحبًا،',
    fallback: 'إذا لم يعمل الزر، انسخ هذا الرابط في المتصفح:',
    ignore: 'إذا لم تكن تتوقع هذه الرسالة، يمكنك تجاهلها.',
    roles: { owner: 'مالك', admin: 'مسؤول', developer: 'مطوّر', viewer: 'مُطّلع' },
    inviteSubject: (a) => `دعوة للانضمام إلى فريق ${a} على توقيع`,
    inviteLead: (i, a, r) => `دعاك ${i} للانضمام إلى فريق «${a}» في لوحة تحكم توقيع بدور «${r}». لقبول الدعوة واختيار كلمة مرور:`,
    inviteButton: 'قبول الدعوة',
    inviteExpiry: 'صلاحية هذه الدعوة سبعة أيام، وتُستخدم مرة واحدة.',
    resetSubject: 'إعادة تعيين كلمة مرور لوحة تحكم توقيع',
    resetLead: 'طُلبت إعادة تعيين كلمة المرور لحسابك في لوحة تحكم توقيع. لاختيار كلمة مرور جديدة:',
    resetButton: 'اختيار كلمة مرور جديدة',
    resetExpiry: 'الرابط صالح لمدة ساعة واحدة ولمرة واحدة، وسيُسجَّل خروجك من كل الأجهزة بعد التغيير.',
    resetIgnore: 'إذا لم تطلب ذلك فتجاهل هذه الرسالة؛ كلمة مرورك لم تتغير.',
    noticeSubject: {
      password_changed: 'تغيّرت كلمة مرور لوحة تحكم توقيع',
      two_factor_disabled: 'أُوقف التحقق بخطوتين في لوحة تحكم توقيع',
    },
    noticeLead: {
      password_changed: 'تغيّرت كلمة مرور حسابك في لوحة تحكم توقيع.',
      two_factor_disabled: 'أُوقف التحقق بخطوتين لحسابك في لوحة تحكم توقيع.',
    },
    noticeFrom: (ip) => `جاء الطلب من العنوان ${ip}.`,
    noticeNotYou: 'إذا لم تكن أنت، فأعد تعيين كلمة المرور فورًا وأبلغ مالك الحساب.',
    noticeButton: 'إعادة تعيين كلمة المرور',
  },
  en: {
    hello: (n) => `Hello ${n},`,
    helloNoName: 'Hello,',
    fallback: 'If the button does not work, copy this link into your browser:',
    ignore: 'If you were not expecting this message, you can ignore it.',
    roles: { owner: 'Owner', admin: 'Administrator', developer: 'Developer', viewer: 'Viewer' },
    inviteSubject: (a) => `You are invited to join ${a} on Tawqi`,
    inviteLead: (i, a, r) => `${i} invited you to join the “${a}” team in the Tawqi console as ${r}. To accept and choose a password:`,
    inviteButton: 'Accept the invitation',
    inviteExpiry: 'This invitation is valid for seven days and can be used once.',
    resetSubject: 'Reset your Tawqi console password',
    resetLead: 'A password reset was requested for your Tawqi console account. To choose a new password:',
    resetButton: 'Choose a new password',
    resetExpiry: 'The link is valid for one hour and can be used once; you will be signed out everywhere after the change.',
    resetIgnore: 'If you did not ask for this, ignore this message: your password has not changed.',
    noticeSubject: {
      password_changed: 'Your Tawqi console password was changed',
      two_factor_disabled: 'Two-factor authentication was turned off for your Tawqi console account',
    },
    noticeLead: {
      password_changed: 'The password of your Tawqi console account was changed.',
      two_factor_disabled: 'Two-factor authentication was turned off for your Tawqi console account.',
    },
    noticeFrom: (ip) => `The request came from the address ${ip}.`,
    noticeNotYou: 'If this was not you, reset your password at once and tell your account’s owner.',
    noticeButton: 'Reset the password',
  },
};

/** The button and, in the HTML part, the link spelled out for mail clients that break buttons. */
function linkBlocks(t: ConsoleTexts, label: string, url: string): Block[] {
  return [
    { kind: 'button', label, href: url },
    { kind: 'small', text: t.fallback, htmlOnly: true },
    { kind: 'link', href: url, htmlOnly: true },
  ];
}

/** The invitation to join an account's team, with the link that accepts it and sets a password. */
export function teamInvitationMessage(
  language: Language,
  v: { inviter: string; accountName: string; role: ConsoleRole; url: string },
): MessageContent {
  const t = TEXTS[language];
  return composeMessage({ language, livemode: true }, t.inviteSubject(v.accountName), [
    { kind: 'para', text: t.helloNoName },
    { kind: 'para', text: t.inviteLead(v.inviter, v.accountName, t.roles[v.role]) },
    ...linkBlocks(t, t.inviteButton, v.url),
    { kind: 'small', text: t.inviteExpiry },
    { kind: 'small', text: t.ignore },
  ]);
}

/** The password reset link. */
export function passwordResetMessage(language: Language, v: { name: string; url: string }): MessageContent {
  const t = TEXTS[language];
  return composeMessage({ language, livemode: true }, t.resetSubject, [
    { kind: 'para', text: v.name ? t.hello(v.name) : t.helloNoName },
    { kind: 'para', text: t.resetLead },
    ...linkBlocks(t, t.resetButton, v.url),
    { kind: 'small', text: t.resetExpiry },
    { kind: 'small', text: t.resetIgnore },
  ]);
}

/** The notice of a security change, with the way back if it was not the user: the forgotten-password page. */
export function securityNoticeMessage(
  language: Language,
  v: { name: string; change: SecurityChange; ip: string; resetUrl: string },
): MessageContent {
  const t = TEXTS[language];
  return composeMessage({ language, livemode: true }, t.noticeSubject[v.change], [
    { kind: 'para', text: v.name ? t.hello(v.name) : t.helloNoName },
    { kind: 'para', text: t.noticeLead[v.change] },
    { kind: 'small', text: t.noticeFrom(v.ip) },
    { kind: 'para', text: t.noticeNotYou },
    ...linkBlocks(t, t.noticeButton, v.resetUrl),
  ]);
}

export interface ConsoleEmail {
  accountId: string;
  to: string;
  language: Language;
  kind: ConsoleEmailKind;
  content: MessageContent;
}

/** Queue a console email in the caller's transaction, due now (the outbox sends it after commit). */
export async function queueConsoleEmail(ctx: ServiceContext, trx: Db, e: ConsoleEmail): Promise<number> {
  const now = nowSeconds(ctx.clock);
  return queueMessage(
    trx,
    {
      account_id: e.accountId,
      livemode: true,
      channel: 'email',
      recipient: e.to,
      kind: e.kind,
      subject: e.content.subject,
      body: e.content.text,
      blocks: e.content.blocks,
      language: e.language,
      signature_request_id: null,
      signer_id: null,
      created_at: now,
    },
    now,
  );
}
