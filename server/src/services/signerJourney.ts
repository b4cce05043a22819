import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { AGENT_PORTS, AGENT_PROTOCOL_VERSIONS, type PageState, type PageStep } from '@tawqi/shared';
import { pageBranding } from '@tawqi/shared/branding';
import { nowSeconds } from '../clock.js';
import { documentValues } from '../domain/requestRules.js';
import { OPEN_STATUSES, signerRefusal } from '../domain/requestStates.js';
import { renderTemplate } from '../domain/templates.js';
import { maskEmail, maskPhone } from '../domain/keys.js';
import { ApiError } from '../errors.js';
import { getAccount, type Account } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import {
  endSignerSessions,
  findPageSession,
  findSigningSession,
  grantAccess,
  insertPageSession,
  type PageSession,
  type SigningSession,
} from '../store/pageSessions.js';
import {
  getRequestById,
  getSigner,
  giveBackAttempt,
  signersOf,
  storeOtpUnlessRecent,
  takeAttempt,
  updateSigner,
  type SignatureRequestRecord,
  type SignerRecord,
} from '../store/signatureRequests.js';
import { findTemplate } from '../store/templates.js';
import { hashCodeAsync, verifyCodeAsync } from './codes.js';
import type { ServiceContext } from '../context.js';
import { otpMessage, queueOtpMessage } from '../delivery/messages.js';
import { otpChannel } from '../domain/workflows.js';
import { otpTemplate, queueWhatsAppMessage, whatsappCodesEnabled } from '../delivery/whatsapp.js';
import { applySignerMove, signerView, type ActionOrigin } from './signerActions.js';
import { linkToken } from '../domain/signingLinks.js';
import { countTestEmails } from './signatureRequests.js';

/** One-time codes (issue: 6 digits, 10-minute life, 5 attempts then locked), access codes, page sessions. */
export const OTP_DIGITS = 6;
export const OTP_LIFETIME_SECONDS = 600;
export const OTP_MAX_ATTEMPTS = 5;
export const OTP_RESEND_SECONDS = 60;
export const ACCESS_CODE_MAX_ATTEMPTS = 5;
export const LINK_PAGE_SESSION_SECONDS = 12 * 3600;

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export interface PageContext {
  session: PageSession;
  signingSession: SigningSession | null;
  signer: SignerRecord;
  request: SignatureRequestRecord;
  signers: SignerRecord[];
  account: Account;
}

/** A link `<signer id>.<token>`: checked against the signer's current link version in constant time. */
export async function signerForLink(ctx: ServiceContext, credential: string): Promise<SignerRecord | null> {
  const dot = credential.indexOf('.');
  if (dot <= 0) return null;
  const signer = await getSigner(ctx.store.db, credential.slice(0, dot));
  if (!signer) return null;
  const expected = Buffer.from(linkToken(ctx.secrets.linkKey, signer.id, signer.link_version));
  const given = Buffer.from(credential.slice(dot + 1));
  return given.length === expected.length && timingSafeEqual(given, expected) ? signer : null;
}

/** Mint the page token a loaded page uses for its API calls (128 random bits, stored as SHA-256). */
export async function mintPageSession(
  ctx: ServiceContext,
  signerId: string,
  kind: PageSession['kind'],
  expiresAt: number,
  signingSessionId: string | null,
): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await insertPageSession(ctx.store.db, {
    token_hash: sha256(token),
    signer_id: signerId,
    kind,
    signing_session_id: signingSessionId,
    expires_at: expiresAt,
    revoked_at: null,
    created_at: nowSeconds(ctx.clock),
  });
  return token;
}

export async function openSigningSession(ctx: ServiceContext, sessionToken: string): Promise<SigningSession | null> {
  const s = await findSigningSession(ctx.store.db, sha256(sessionToken));
  if (!s || s.invalidated_at !== null || s.expires_at <= nowSeconds(ctx.clock)) return null;
  return s;
}

export async function loadPage(ctx: ServiceContext, trx: Db, token: string | undefined): Promise<PageContext> {
  if (!token) throw new ApiError('page_session_invalid');
  const session = await findPageSession(trx, sha256(token));
  if (!session || session.revoked_at !== null || session.expires_at <= nowSeconds(ctx.clock)) throw new ApiError('page_session_invalid');
  const signingSession = session.signing_session_id ? ((await findSigningSession(trx, session.signing_session_id)) ?? null) : null;
  if (signingSession && (signingSession.invalidated_at !== null || signingSession.expires_at <= nowSeconds(ctx.clock)))
    throw new ApiError('page_session_invalid');
  const signer = (await getSigner(trx, session.signer_id))!;
  const request = (await getRequestById(trx, signer.signature_request_id))!;
  const signers = await signersOf(trx, request.id);
  const account = (await getAccount(trx, request.account_id))!;
  return { session, signingSession, signer: signers.find((s) => s.id === signer.id)!, request, signers, account };
}

export type { PageStep };

export function pageStep(p: Pick<PageContext, 'session' | 'signer' | 'request' | 'signers'>): PageStep {
  const { signer, request } = p;
  if (signer.status === 'signed') return 'signed';
  if (signer.status === 'declined') return 'declined';
  if (!OPEN_STATUSES.includes(request.status)) return 'closed';
  const others = p.signers.filter((s) => s.id !== signer.id).map(signerView);
  if (signerRefusal(request, signerView(signer), others, 'view') === 'not_your_turn' || signer.status === 'pending') return 'not_your_turn';
  if (signer.access_code_hash && p.session.access_granted !== 1) return 'access_code';
  if (signer.status === 'sent' || signer.status === 'viewed') return 'otp';
  switch (signer.identity.status) {
    case 'required':
    case 'resubmission_requested':
      return 'identity';
    case 'in_review':
      return 'identity_wait';
    case 'declined':
    case 'match_rejected':
      return 'identity_declined';
    case 'match_hold':
      return 'identity_hold';
    default:
      return 'review';
  }
}

/** The finish address of a redirect session, or of a hosted link whose request has a return_url. */
export function finishUrl(p: Pick<PageContext, 'signingSession' | 'request' | 'signer'>, outcome: 'completed' | 'declined'): string | null {
  const s = p.signingSession;
  const fill = (u: string) => u.replaceAll('{signature_request}', encodeURIComponent(p.request.id));
  const specific = outcome === 'completed' ? (s?.success_url ?? p.request.success_url) : (s?.cancel_url ?? p.request.cancel_url);
  if (specific && (s?.mode === 'redirect' || !s)) return fill(specific);
  const base = s ? s.return_url : p.request.return_url;
  if (!base || (s && s.mode !== 'redirect')) return null;
  const url = new URL(fill(base));
  url.searchParams.set('session_id', p.request.id);
  url.searchParams.set('signer_id', p.signer.id);
  url.searchParams.set('status', outcome);
  return url.toString();
}

export async function pageState(ctx: ServiceContext, p: PageContext): Promise<PageState> {
  const step = pageStep(p);
  const now = nowSeconds(ctx.clock);
  let document: { text: string } | null = null;
  if (step === 'review' || step === 'signed') {
    const template = await findTemplate(ctx.store.db, p.account.id, p.request.template_id);
    document = { text: template ? renderTemplate(template.body, documentValues(p.signers)) : '' };
  }
  return {
    language: p.request.language,
    livemode: p.request.livemode,
    /** The server's clock (Unix seconds), for countdowns that must agree with the server. */
    server_time: now,
    step,
    closed_reason: step === 'closed' ? p.request.status : null,
    request: { id: p.request.id, title: p.request.title, status: p.request.status, legal_level: p.request.legal_level },
    signer: {
      id: p.signer.id,
      name: p.signer.name,
      status: p.signer.status,
      order: p.signer.position,
      method: p.signer.method,
      identity_status: p.signer.identity.status,
    },
    access: p.signer.access_code_hash
      ? {
          attempts_left: Math.max(0, ACCESS_CODE_MAX_ATTEMPTS - p.signer.access_attempts),
          locked: p.signer.access_attempts >= ACCESS_CODE_MAX_ATTEMPTS,
        }
      : null,
    otp: {
      sent: p.signer.otp_hash !== null,
      destination: otpDestination(ctx, p),
      expires_at: p.signer.otp_expires_at,
      attempts_left: Math.max(0, OTP_MAX_ATTEMPTS - p.signer.otp_attempts),
      locked: p.signer.otp_hash !== null && p.signer.otp_attempts >= OTP_MAX_ATTEMPTS,
      resend_at: p.signer.otp_sent_at === null ? null : Math.max(now, p.signer.otp_sent_at + OTP_RESEND_SECONDS),
    },
    document,
    branding: pageBranding(p.account.branding, p.request.language),
    embed:
      p.signingSession && p.signingSession.mode !== 'redirect' && p.signingSession.embed_origin
        ? { origin: p.signingSession.embed_origin }
        : null,
    /** Method token: where the page finds the desktop agent (shared/src/agentProtocol.ts) and where to get it. */
    token:
      p.signer.method === 'token'
        ? {
            agent_ports: [...AGENT_PORTS],
            protocol_versions: [...AGENT_PROTOCOL_VERSIONS],
            download_url: ctx.config.TAWQI_AGENT_DOWNLOAD_URL ?? null,
          }
        : null,
    finish: step === 'signed' || step === 'declined' ? { redirect_url: finishUrl(p, step === 'signed' ? 'completed' : 'declined') } : null,
  };
}

/** First open (signer.viewed, and signature_request.viewed on the request's first view); later opens change nothing. */
export async function recordView(ctx: ServiceContext, trx: Db, p: PageContext, origin: ActionOrigin): Promise<void> {
  const step = pageStep(p);
  if (step === 'closed' || step === 'not_your_turn' || step === 'signed' || step === 'declined' || p.signer.viewed_at !== null) return;
  await applySignerMove(ctx, trx, p.signer.id, 'view', origin);
}

/**
 * Check an access code, at the access-code step only. The attempt is taken first, atomically (takeAttempt: concurrent guesses
 * cannot pass the limit), the code is checked on the thread pool, and a right code gets its
 * attempt back with the access grant; a wrong one is refused with the attempts left.
 */
export async function checkAccessCode(ctx: ServiceContext, p: PageContext, code: string): Promise<void> {
  // Only where the page asks for it: a closed request, a signer out of turn or past this step accepts
  // no code (no attempt taken, no access granted), as every other page call.
  const step = pageStep(p);
  if (step !== 'access_code') throw new ApiError('invalid_state', null, { reason: step });
  const hash = p.signer.access_code_hash!;
  const attempts = await takeAttempt(ctx.store.db, p.signer.id, 'access_attempts', ACCESS_CODE_MAX_ATTEMPTS);
  if (attempts === null) throw new ApiError('access_code_locked');
  if (await verifyCodeAsync(code, hash)) {
    await ctx.store.tx(async (trx) => {
      await giveBackAttempt(trx, p.signer.id, 'access_attempts');
      await grantAccess(trx, p.session.token_hash);
    });
    return;
  }
  if (attempts >= ACCESS_CODE_MAX_ATTEMPTS) throw new ApiError('access_code_locked');
  throw new ApiError('access_code_invalid', 'code', { attempts_left: ACCESS_CODE_MAX_ATTEMPTS - attempts });
}

/** Where a signer's code goes (spec 4.2): the request's channel, WhatsApp falling back to email; link: the email, else the number. */
function otpRoute(ctx: ServiceContext, p: Pick<PageContext, 'request' | 'signer' | 'account'>): 'email' | 'whatsapp' {
  return otpChannel(p.request.workflow?.channel ?? null, p.signer, whatsappCodesEnabled(ctx.config, p.account, p.request.livemode));
}

function otpDestination(ctx: ServiceContext, p: PageContext): string | null {
  if (otpRoute(ctx, p) === 'email') return p.signer.email ? maskEmail(p.signer.email) : null;
  return p.signer.phone ? maskPhone(p.signer.phone) : null;
}

/**
 * Send a new one-time code through the request's channel (see otpRoute). The code is hashed on the
 * thread pool before the transaction that stores it and queues its message.
 */
export async function sendOtp(ctx: ServiceContext, p: PageContext): Promise<void> {
  if (pageStep(p) !== 'otp') throw new ApiError('invalid_state', null, { reason: 'otp_not_expected' });
  const asked = nowSeconds(ctx.clock);
  if (p.signer.otp_sent_at !== null && asked - p.signer.otp_sent_at < OTP_RESEND_SECONDS) throw otpTooSoon(p.signer.otp_sent_at, asked);
  const code = String(randomInt(0, 10 ** OTP_DIGITS)).padStart(OTP_DIGITS, '0');
  const otpHash = await hashCodeAsync(code);
  await ctx.store.tx((trx) => storeAndSendOtp(ctx, trx, p, code, otpHash));
}

const otpTooSoon = (sentAt: number, now: number): ApiError =>
  new ApiError('otp_too_soon', null, {}, { 'Retry-After': String(Math.max(1, sentAt + OTP_RESEND_SECONDS - now)) });

async function storeAndSendOtp(ctx: ServiceContext, trx: Db, p: PageContext, code: string, otpHash: string): Promise<void> {
  const now = nowSeconds(ctx.clock);
  const changes = { otp_hash: otpHash, otp_expires_at: now + OTP_LIFETIME_SECONDS, otp_attempts: 0, otp_sent_at: now };
  // The check above read the signer before this transaction: a code sent since (a concurrent
  // request, maybe on another process) stands, and this one is refused.
  const sentAt = await storeOtpUnlessRecent(trx, p.signer.id, changes, now - OTP_RESEND_SECONDS);
  if (sentAt !== null) throw otpTooSoon(sentAt, now);
  Object.assign(p.signer, changes);
  const route = otpRoute(ctx, p);
  if (route === 'email' && p.signer.email) {
    if (!p.request.livemode) await countTestEmails(ctx, trx, p.request.account_id, 1);
    await queueOtpMessage(ctx, trx, p.request, p.signer, code);
    return;
  }
  // By WhatsApp: the authentication template when configured (without one, a plain text message, which
  // Meta delivers only inside a conversation the signer opened); held while no WhatsApp transport exists.
  const text = otpMessage(p.request, code);
  await queueWhatsAppMessage(
    trx,
    {
      template: otpTemplate(ctx.config, p.request.language, code),
      account_id: p.request.account_id,
      livemode: p.request.livemode,
      recipient: p.signer.phone!,
      kind: 'otp',
      subject: text.subject,
      body: text.text,
      language: p.request.language,
      signature_request_id: p.request.id,
      signer_id: p.signer.id,
      created_at: now,
    },
    now,
  );
}

/**
 * Verify a one-time code: 10-minute life, 5 wrong attempts lock it (a new code can be sent). As
 * for access codes, the attempt is taken atomically before the code is checked on the thread pool.
 */
export async function verifyOtp(ctx: ServiceContext, p: PageContext, code: string, origin: ActionOrigin): Promise<void> {
  if (pageStep(p) !== 'otp') throw new ApiError('invalid_state', null, { reason: 'otp_not_expected' });
  const s = p.signer;
  const otpHash = s.otp_hash;
  if (otpHash === null) throw new ApiError('otp_expired', 'code');
  if (s.otp_attempts >= OTP_MAX_ATTEMPTS) throw new ApiError('otp_locked', 'code');
  if (s.otp_expires_at !== null && s.otp_expires_at <= nowSeconds(ctx.clock)) throw new ApiError('otp_expired', 'code');
  const attempts = await takeAttempt(ctx.store.db, s.id, 'otp_attempts', OTP_MAX_ATTEMPTS);
  if (attempts === null) throw new ApiError('otp_locked', 'code');
  if (/^\d{6}$/.test(code) && (await verifyCodeAsync(code, otpHash))) {
    await ctx.store.tx((trx) => passOtp(ctx, trx, s, origin));
    return;
  }
  if (attempts >= OTP_MAX_ATTEMPTS) throw new ApiError('otp_locked', 'code');
  throw new ApiError('otp_invalid', 'code', { attempts_left: OTP_MAX_ATTEMPTS - attempts });
}

/**
 * The right code's effect, in the caller's transaction: the code is used up, the first view is
 * recorded if the page skipped /view (spec 3.1 viewed row), and the signer moves to otp_verified.
 * The test helpers (POST /test_helpers/signers/{id}/…) run exactly this for a test signer.
 */
export async function passOtp(ctx: ServiceContext, trx: Db, s: SignerRecord, origin: ActionOrigin): Promise<void> {
  await updateSigner(trx, s.id, { otp_hash: null, otp_expires_at: null, otp_attempts: 0 });
  if (s.viewed_at === null) await applySignerMove(ctx, trx, s.id, 'view', origin);
  await applySignerMove(ctx, trx, s.id, 'otp_verified', origin);
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const MAX_SIGNATURE_BYTES = 300 * 1024;

/** A drawn signature: a PNG data URL of bounded size whose bytes really are a PNG. */
export function validSignatureImage(dataUrl: string): boolean {
  const prefix = 'data:image/png;base64,';
  if (!dataUrl.startsWith(prefix)) return false;
  const bytes = Buffer.from(dataUrl.slice(prefix.length), 'base64');
  return bytes.length > PNG_MAGIC.length && bytes.length <= MAX_SIGNATURE_BYTES && bytes.subarray(0, 8).equals(PNG_MAGIC);
}

export async function signOnPage(ctx: ServiceContext, trx: Db, p: PageContext, signature: string, origin: ActionOrigin): Promise<void> {
  if (pageStep(p) !== 'review') throw new ApiError('invalid_state', null, { reason: pageStep(p) });
  // A token signer signs with the token (POST /sign/api/token/complete), never with a drawing.
  if (p.signer.method === 'token') throw new ApiError('invalid_state', null, { reason: 'method_token' });
  if (!validSignatureImage(signature)) {
    throw new ApiError(
      'parameter_invalid',
      'signature',
      {},
      {},
      { en: 'The signature must be a PNG image drawn on the page.', ar: 'يجب أن يكون التوقيع صورة PNG مرسومة في الصفحة.' },
    );
  }
  await applySignerMove(ctx, trx, p.signer.id, 'sign', origin, { signatureImage: signature });
  await endSignerSessions(trx, p.signer.id, nowSeconds(ctx.clock));
}

export async function declineOnPage(
  ctx: ServiceContext,
  trx: Db,
  p: PageContext,
  reason: string | undefined,
  origin: ActionOrigin,
): Promise<void> {
  const step = pageStep(p);
  if (['closed', 'not_your_turn', 'signed', 'declined', 'access_code'].includes(step))
    throw new ApiError('invalid_state', null, { reason: step });
  await applySignerMove(ctx, trx, p.signer.id, 'decline', origin, { reason });
  await endSignerSessions(trx, p.signer.id, nowSeconds(ctx.clock));
}
