import type { Language } from '@tawqi/shared';
import { nowSeconds } from '../clock.js';
import { whiteTextReadable, type Branding } from '../domain/branding.js';
import type { Db } from '../store/db.js';
import { queueMessage, type OutgoingMessage } from '../store/messages.js';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';
import type { ServiceContext } from '../context.js';

/**
 * The emails a request sends — invitation, reminder, one-time code, final-file notice — as a text
 * and an HTML part, Arabic (right to left) or English after the request's language.
 *
 * What is stored is the text part and the message's blocks (JSON; the HTML page is built from them
 * when the message leaves, `messageHtml`), with a few tokens filled in at delivery (`fillMessage`):
 *   {{signing_url}}  the signer's link, derived at send time, so the database holds no usable link;
 *   {{brand_…}}, {{button_color}}, {{powered_by}}  the account's branding as it is when the mail
 *   leaves, so every kind of message is branded the same way, whoever queued it.
 * Every value from a request (names, titles, codes) is HTML-escaped in the HTML part, braces
 * included, so no value can carry markup or a token; in the text part `{{` is broken up for the
 * same reason. Test-mode messages carry [TEST] in the subject and a notice in both parts (spec part 5).
 * The access code is never in a message: it only says one will be asked for.
 */
export const LINK_PLACEHOLDER = '{{signing_url}}';

export interface MessageContent {
  subject: string;
  text: string;
  /** The blocks as JSON: what is stored; `messageHtml` builds the HTML part from them. */
  blocks: string;
}

const TOKENS = {
  brandName: '{{brand_name}}',
  brandHeader: '{{brand_header}}',
  brandColor: '{{brand_color}}',
  buttonColor: '{{button_color}}',
  poweredBy: '{{powered_by}}',
} as const;

const TOKEN_PATTERN = /\{\{(signing_url|brand_name|brand_header|brand_color|button_color|powered_by)\}\}/g;

/** Default colours: white on the default button colour is 6.7:1. */
export const DEFAULT_BRAND_COLOR = '#1d4ed8';

// ---------------------------------------------------------------------------------------------
// Escaping
// ---------------------------------------------------------------------------------------------

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '{': '&#123;',
  '}': '&#125;',
};

/** Safe in element content and in a double- or single-quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'{}]/g, (c) => HTML_ESCAPES[c]!);
}

/** A value in the text part: a token cannot be formed from it. */
function plain(value: string): string {
  return value.replaceAll('{{', '{ {').replaceAll('}}', '} }');
}

/** A value in a header (subject): one line. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// Texts
// ---------------------------------------------------------------------------------------------

interface Texts {
  invite: (t: string) => string;
  remind: (t: string) => string;
  hello: (n: string) => string;
  body: (t: string) => string;
  remindLead: (t: string) => string;
  button: string;
  fallback: string;
  notice: string;
  access: string;
  ignore: string;
  poweredBy: string;
  otpSubject: (t: string) => string;
  otpBody: string;
  otpExpiry: string;
  doneSubject: (t: string) => string;
  doneLead: (t: string) => string;
  reference: (ref: string) => string;
  doneSigner: string;
  doneButton: string;
  doneSender: (id: string) => string;
}

const TEXTS: Record<Language, Texts> = {
  ar: {
    invite: (t) => `طلب توقيع: ${t}`,
    remind: (t) => `تذكير بطلب التوقيع: ${t}`,
    hello: (n) => `مرحبًا ${n}،`,
    body: (t) => `يُرجى مراجعة المستند «${t}» وتوقيعه عبر الرابط التالي:`,
    remindLead: (t) => `تذكير: ما زال المستند «${t}» بانتظار توقيعك. يمكنك مراجعته وتوقيعه عبر الرابط التالي:`,
    button: 'مراجعة المستند وتوقيعه',
    fallback: 'إذا لم يعمل الزر، انسخ هذا الرابط في المتصفح:',
    notice: 'هذه رسالة اختبار: المستند لا يحمل أي أثر قانوني.',
    access: 'سيُطلب منك رمز الدخول الذي أرسله إليك المرسل بطريقة أخرى.',
    ignore: 'إذا لم تكن تتوقع هذه الرسالة، يمكنك تجاهلها.',
    poweredBy: 'مدعوم من توقيع (Tawqi)',
    otpSubject: (t) => `رمز التحقق لتوقيع: ${t}`,
    otpBody: 'رمز التحقق الخاص بك:',
    otpExpiry: 'صالح لمدة 10 دقائق. لا تشاركه مع أحد.',
    doneSubject: (t) => `اكتمل التوقيع: ${t}`,
    doneLead: (t) => `وقّع جميع الأطراف المستند «${t}».`,
    reference: (ref) => `المرجع: ${ref}`,
    doneSigner: 'يمكنك تنزيل النسخة النهائية الموقّعة عبر الرابط التالي:',
    doneButton: 'تنزيل النسخة النهائية',
    doneSender: (id) => `الطلب ${id}. نزّل الملف النهائي عبر الواجهة البرمجية بمفتاحك السري:`,
  },
  en: {
    invite: (t) => `Signature request: ${t}`,
    remind: (t) => `Reminder — signature request: ${t}`,
    hello: (n) => `Hello ${n},`,
    body: (t) => `Please review and sign “${t}” at this link:`,
    remindLead: (t) => `A reminder: “${t}” is still waiting for your signature. You can review and sign it at this link:`,
    button: 'Review and sign',
    fallback: 'If the button does not work, copy this link into your browser:',
    notice: 'This is a test message: the document has no legal effect.',
    access: 'You will be asked for the access code the sender gave you separately.',
    ignore: 'If you were not expecting this message, you can ignore it.',
    poweredBy: 'Powered by Tawqi',
    otpSubject: (t) => `Your code to sign: ${t}`,
    otpBody: 'Your verification code:',
    otpExpiry: 'It is valid for 10 minutes. Do not share it.',
    doneSubject: (t) => `Completed: ${t}`,
    doneLead: (t) => `Every party has signed “${t}”.`,
    reference: (ref) => `Reference: ${ref}`,
    doneSigner: 'You can download the final signed copy at this link:',
    doneButton: 'Download the final copy',
    doneSender: (id) => `Request ${id}. Download the final file through the API with your secret key:`,
  },
};

// ---------------------------------------------------------------------------------------------
// Building blocks: text lines and HTML blocks built side by side
// ---------------------------------------------------------------------------------------------

/** One paragraph of a message, in both parts. Values are raw; the HTML part escapes them. */
export type Block = (
  | { kind: 'para'; text: string }
  | { kind: 'button'; label: string; href: string }
  | { kind: 'code'; code: string }
  | { kind: 'link'; href: string }
  | { kind: 'small'; text: string }
) & { htmlOnly?: boolean };

const FONT = "-apple-system,'Segoe UI',Tahoma,'Noto Naskh Arabic','Noto Sans Arabic',Arial,sans-serif";

function blockHtml(b: Block): string {
  switch (b.kind) {
    case 'para':
      return `<p style="margin:0 0 14px;">${escapeHtml(b.text)}</p>`;
    case 'small':
      return `<p style="margin:0 0 14px;font-size:13px;color:#4b5563;">${escapeHtml(b.text)}</p>`;
    case 'button':
      return (
        '<p style="margin:22px 0;">' +
        `<a href="${href(b.href)}" style="display:inline-block;background:${TOKENS.buttonColor};color:#ffffff;text-decoration:none;font-weight:bold;padding:12px 26px;border-radius:6px;">${escapeHtml(b.label)}</a>` +
        '</p>'
      );
    case 'link':
      return `<p style="margin:0 0 14px;font-size:13px;word-break:break-all;"><a href="${href(b.href)}" dir="ltr" style="color:#1d4ed8;">${href(b.href)}</a></p>`;
    case 'code':
      return `<p dir="ltr" style="margin:18px 0;font-family:Menlo,Consolas,monospace;font-size:28px;font-weight:bold;letter-spacing:6px;">${escapeHtml(b.code)}</p>`;
  }
}

function blockText(b: Block): string {
  switch (b.kind) {
    case 'para':
    case 'small':
      return plain(b.text);
    case 'button':
      return b.href;
    case 'link':
      return b.href;
    case 'code':
      return plain(b.code);
  }
}

/** `href` of a block in the HTML part: the link token, or a URL given by the caller (escaped for the attribute). */
function href(url: string): string {
  return url === LINK_PLACEHOLDER ? LINK_PLACEHOLDER : escapeHtml(url);
}

/** Test-mode subjects carry [TEST] (spec part 5); a subject is one line. */
function fullSubject(livemode: boolean, subject: string): string {
  return (livemode ? '' : '[TEST] ') + oneLine(subject);
}

/**
 * The whole message as stored: the text part (the blocks one per paragraph, then the test notice,
 * then the brand line) and the blocks themselves, from which `messageHtml` builds the HTML part
 * when the message leaves. Storing the blocks (~0.5 KB) instead of the finished page (~2 KB of
 * boilerplate per message) keeps every queued message small.
 */
export function composeMessage(r: Pick<SignatureRequestRecord, 'language' | 'livemode'>, subject: string, blocks: Block[]): MessageContent {
  const t = TEXTS[r.language];
  const textLines: string[] = [];
  for (const b of blocks) {
    if (b.htmlOnly) continue;
    // The button's text form is its link on its own line, right after the paragraph that leads to it.
    if (b.kind === 'button' || b.kind === 'link') textLines.push(blockText(b));
    else textLines.push('', blockText(b));
  }
  if (!r.livemode) textLines.push('', t.notice);
  textLines.push('', `— ${TOKENS.brandName}`, TOKENS.poweredBy);
  const text = textLines.join('\n').replace(/^\n+/, '');
  return { subject: fullSubject(r.livemode, subject), text, blocks: JSON.stringify(blocks) };
}

/** What the HTML part is built from: a stored message's blocks, language, mode and subject. */
export interface HtmlSource {
  blocks: string;
  language: string;
  livemode: boolean | number;
  subject: string;
}

/**
 * The HTML part of a message, tokens still in: a single-column, table-based page (what mail
 * clients render reliably), dir="rtl" for Arabic, styles inline.
 */
export function messageHtml(m: HtmlSource): string {
  const lang: Language = m.language === 'en' ? 'en' : 'ar';
  const t = TEXTS[lang];
  const dir = lang === 'ar' ? 'rtl' : 'ltr';
  const align = lang === 'ar' ? 'right' : 'left';
  const blocks = JSON.parse(m.blocks) as Block[];
  const notice = m.livemode
    ? ''
    : `<tr><td style="padding:6px 28px;"><div style="background:#fff4e5;border:1px solid #f0b429;border-radius:4px;padding:10px 12px;font-size:14px;color:#7c4a03;">${escapeHtml(t.notice)}</div></td></tr>`;
  return [
    '<!doctype html>',
    `<html lang="${lang}" dir="${dir}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(m.subject)}</title></head>`,
    `<body dir="${dir}" style="margin:0;padding:0;background:#f3f4f6;">`,
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f3f4f6;"><tr><td align="center" style="padding:24px 12px;">',
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" dir="${dir}" style="max-width:560px;background:#ffffff;border-top:4px solid ${TOKENS.brandColor};border-radius:6px;font-family:${FONT};color:#1f2937;text-align:${align};">`,
    `<tr><td style="padding:22px 28px 6px;font-size:18px;font-weight:bold;color:#111827;">${TOKENS.brandHeader}</td></tr>`,
    notice,
    `<tr><td style="padding:10px 28px 22px;font-size:15px;line-height:1.7;">`,
    ...blocks.map(blockHtml),
    '</td></tr>',
    TOKENS.poweredBy,
    '</table>',
    '</td></tr></table>',
    '</body>',
    '</html>',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// The messages
// ---------------------------------------------------------------------------------------------

/** Invitation or reminder to sign, with the signer's link (filled in at delivery). */
export function invitationMessage(r: SignatureRequestRecord, s: SignerRecord, kind: 'invitation' | 'reminder'): MessageContent {
  const t = TEXTS[r.language];
  const blocks: Block[] = [
    { kind: 'para', text: t.hello(s.name) },
    { kind: 'para', text: kind === 'invitation' ? t.body(r.title) : t.remindLead(r.title) },
    { kind: 'button', label: t.button, href: LINK_PLACEHOLDER },
    { kind: 'small', text: t.fallback, htmlOnly: true },
    { kind: 'link', href: LINK_PLACEHOLDER, htmlOnly: true },
  ];
  if (s.access_code_hash) blocks.push({ kind: 'para', text: t.access });
  blocks.push({ kind: 'small', text: t.ignore });
  return composeMessage(r, kind === 'invitation' ? t.invite(r.title) : t.remind(r.title), blocks);
}

/**
 * The one-time code message. The delivery job scrubs the stored parts after SMTP delivery, so no
 * code stays in the database.
 */
export function otpMessage(r: SignatureRequestRecord, code: string): MessageContent {
  const t = TEXTS[r.language];
  return composeMessage(r, t.otpSubject(r.title), [
    { kind: 'para', text: t.otpBody },
    { kind: 'code', code },
    { kind: 'para', text: t.otpExpiry },
    { kind: 'small', text: t.ignore },
  ]);
}

/**
 * The final-file notice of a completed request (spec 3.1, live mode): to a signer, with their link
 * (the signing page offers the final file once the request is completed); to the sender, with the
 * API download address.
 */
export function finalFileMessage(
  r: SignatureRequestRecord,
  to: { signer: SignerRecord } | { sender: true; downloadUrl: string },
): MessageContent {
  const t = TEXTS[r.language];
  const blocks: Block[] = [];
  if ('signer' in to) blocks.push({ kind: 'para', text: t.hello(to.signer.name) });
  blocks.push({ kind: 'para', text: t.doneLead(r.title) });
  if (r.reference) blocks.push({ kind: 'para', text: t.reference(r.reference) });
  if ('signer' in to) {
    blocks.push(
      { kind: 'para', text: t.doneSigner },
      { kind: 'button', label: t.doneButton, href: LINK_PLACEHOLDER },
      { kind: 'small', text: t.fallback, htmlOnly: true },
      { kind: 'link', href: LINK_PLACEHOLDER, htmlOnly: true },
    );
  } else {
    blocks.push({ kind: 'para', text: t.doneSender(r.id) }, { kind: 'link', href: to.downloadUrl });
  }
  return composeMessage(r, t.doneSubject(r.title), blocks);
}

// ---------------------------------------------------------------------------------------------
// Filling in at delivery
// ---------------------------------------------------------------------------------------------

export interface FillValues {
  language: Language;
  /** The signer's link, or null when the message has none (left as is). */
  signingUrl: string | null;
  branding: Branding;
  /** Shown when the account has no brand name. */
  accountName: string;
}

/** The brand name a message shows: the branding's, else the account's name. */
export function brandName(v: Pick<FillValues, 'branding' | 'accountName'>): string {
  return v.branding.brand_name ?? v.accountName;
}

/** The sign button's colour: the checked button colour, else the brand colour when white text reads on it. */
function buttonColor(b: Branding): string {
  if (b.sign_button_color) return b.sign_button_color;
  if (b.brand_color && whiteTextReadable(b.brand_color)) return b.brand_color;
  return DEFAULT_BRAND_COLOR;
}

/**
 * Fill the tokens of a stored message. One pass, so a substituted value is never scanned again;
 * values are escaped for the HTML part. Colours and the logo address come from validated branding.
 */
export function fillMessage(stored: { text: string; html: string | null }, v: FillValues): { text: string; html: string | null } {
  const t = TEXTS[v.language];
  const name = brandName(v);
  const powered = v.branding.hide_powered === true;
  const textValues: Record<string, string> = {
    signing_url: v.signingUrl ?? LINK_PLACEHOLDER,
    brand_name: name,
    brand_header: name,
    brand_color: v.branding.brand_color ?? DEFAULT_BRAND_COLOR,
    button_color: buttonColor(v.branding),
    powered_by: powered ? '' : t.poweredBy,
  };
  const logo = v.branding.logo_url
    ? `<img src="${escapeHtml(v.branding.logo_url)}" alt="${escapeHtml(name)}" height="40" style="display:block;max-height:40px;border:0;">`
    : escapeHtml(name);
  const htmlValues: Record<string, string> = {
    signing_url: v.signingUrl === null ? LINK_PLACEHOLDER : escapeHtml(v.signingUrl),
    brand_name: escapeHtml(name),
    brand_header: logo,
    brand_color: escapeHtml(textValues.brand_color!),
    button_color: escapeHtml(textValues.button_color!),
    powered_by: powered
      ? ''
      : `<tr><td style="padding:12px 28px 18px;border-top:1px solid #e5e7eb;font-size:12px;color:#6b7280;">${escapeHtml(t.poweredBy)}</td></tr>`,
  };
  const text = stored.text.replace(TOKEN_PATTERN, (_, k: string) => textValues[k]!).replace(/\s+$/, '');
  const html = stored.html === null ? null : stored.html.replace(TOKEN_PATTERN, (_, k: string) => htmlValues[k]!);
  return { text, html };
}

// ---------------------------------------------------------------------------------------------
// Queueing
// ---------------------------------------------------------------------------------------------

export interface QueuedEmail {
  request: SignatureRequestRecord;
  signerId: string | null;
  to: string;
  kind: OutgoingMessage['kind'];
  content: MessageContent;
}

/** Queue one email in the caller's transaction, due now (the delivery runner sends it after commit). */
export async function queueEmail(ctx: ServiceContext, trx: Db, e: QueuedEmail): Promise<number> {
  const now = nowSeconds(ctx.clock);
  return queueMessage(
    trx,
    {
      account_id: e.request.account_id,
      livemode: e.request.livemode,
      channel: 'email',
      recipient: e.to,
      kind: e.kind,
      subject: e.content.subject,
      body: e.content.text,
      blocks: e.content.blocks,
      language: e.request.language,
      signature_request_id: e.request.id,
      signer_id: e.signerId,
      created_at: now,
    },
    now,
  );
}

/**
 * Queue the one-time code email of a signer. In test mode the caller counts it against the test
 * email limit, as it does for invitations.
 */
export async function queueOtpMessage(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  code: string,
): Promise<number | null> {
  if (!signer.email) return null;
  return queueEmail(ctx, trx, { request, signerId: signer.id, to: signer.email, kind: 'otp', content: otpMessage(request, code) });
}

/**
 * The final-file notices of a completed request (spec 3.1): live mode only, to every signer with an
 * email and to the sender (the account owner's email). Returns the queued message ids.
 */
export async function queueFinalFileNotices(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
  senderEmail: string | null,
): Promise<number[]> {
  if (!request.livemode) return [];
  const ids: number[] = [];
  for (const signer of signers) {
    if (!signer.email) continue;
    ids.push(
      await queueEmail(ctx, trx, {
        request,
        signerId: signer.id,
        to: signer.email,
        kind: 'final_copy',
        content: finalFileMessage(request, { signer }),
      }),
    );
  }
  if (senderEmail) {
    const downloadUrl = `${ctx.publicUrl}/api/v1/signature_requests/${request.id}/download`;
    ids.push(
      await queueEmail(ctx, trx, {
        request,
        signerId: null,
        to: senderEmail,
        kind: 'final_copy',
        content: finalFileMessage(request, { sender: true, downloadUrl }),
      }),
    );
  }
  return ids;
}
