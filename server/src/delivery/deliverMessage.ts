import type { Language } from '@tawqi/shared';
import { nowSeconds } from '../clock.js';
import { absoluteLogoUrl, brandingOf } from '../domain/branding.js';
import type { ServiceContext } from '../context.js';
import { brandName, fillMessage, LINK_PLACEHOLDER, messageHtml } from './messages.js';
import { signingUrl } from '../domain/signingLinks.js';
import type { Tx } from '../store/db.js';
import type { MessageTransport, OutboundMessage, WhatsAppTemplate } from '../transport.js';
import { fillTemplate } from './whatsapp.js';
import { getMessage, type MessageEnvelope, type MessageOutcome, type MessageRow } from '../store/messages.js';

/** What replaces a one-time code message once it has left: no code stays at rest. */
export const SCRUBBED_NOTE = '[one-time code message delivered; its content is not kept]';
/** What replaces a console email with a one-time link (invitation, password reset) once it has left. */
export const LINK_SCRUBBED_NOTE = '[one-time link message delivered; its content is not kept]';

/** Messages that carry a secret (a code, a link's only copy of its token): none stays at rest once sent. */
const SCRUBBED: Partial<Record<string, string>> = {
  otp: SCRUBBED_NOTE,
  console_invitation: LINK_SCRUBBED_NOTE,
  password_reset: LINK_SCRUBBED_NOTE,
};

/**
 * A delivered message's new state (sent or held), for the caller to record and commit
 * (store/messages.ts recordMessageOutcomes: nothing is written when the message is no longer
 * queued under the claim it was taken with).
 */
export type DeliveryOutcome = MessageOutcome;

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string | null;
  /** The brand name shown in the message (the branding's, else the account's name). */
  brandName: string;
  /** From display name: the branding's brand name, else null (the server's default sender name). */
  fromName: string | null;
  /** The account's own address (branding from_email), for Reply-To or From. */
  fromEmail: string | null;
  /** The signer's link as put in (null when the message has none). */
  signingUrl: string | null;
}

/**
 * A stored message as it leaves: the signer's link derived now from the signer id and its link
 * version (so no stored message holds a usable link), the account's branding filled in.
 */
export async function renderMessage(db: Tx, message: MessageRow, publicUrl: string, linkKey: Buffer): Promise<RenderedMessage> {
  let link: string | null = null;
  const stored = message.body + (message.blocks ?? message.html ?? '') + (message.template ?? '');
  if (message.signer_id && stored.includes(LINK_PLACEHOLDER)) {
    const signer = await db.selectFrom('signers').select(['id', 'link_version']).where('id', '=', message.signer_id).executeTakeFirst();
    if (signer) link = signingUrl(publicUrl, linkKey, signer.id, signer.link_version);
  }
  const account = await db.selectFrom('accounts').select(['name', 'branding']).where('id', '=', message.account_id).executeTakeFirst();
  const branding = brandingOf(account ? (JSON.parse(account.branding) as unknown) : {});
  const logo = absoluteLogoUrl(branding.logo_url, publicUrl);
  if (logo) branding.logo_url = logo;
  const values = {
    language: (message.language === 'en' ? 'en' : 'ar') as Language,
    signingUrl: link,
    branding,
    accountName: account?.name ?? 'Tawqi',
  };
  // Rows queued before blocks were stored keep their finished HTML.
  const html = message.blocks !== null ? messageHtml({ ...message, blocks: message.blocks }) : message.html;
  const filled = fillMessage({ text: message.body, html }, values);
  return {
    subject: message.subject,
    text: filled.text,
    html: filled.html,
    brandName: brandName(values),
    fromName: branding.brand_name ?? null,
    fromEmail: branding.from_email ?? null,
    signingUrl: link,
  };
}

/**
 * Deliver one queued message (the delivery runner, or a session at once; at least once, so it is
 * idempotent: only a 'queued' message is sent, and only a 'queued' one is marked). It is decided
 * from the message's envelope; the content is read only when the message leaves. Without a
 * transport for its channel the message stays in the database as 'held', intact, for
 * `tawqi mail show` (local use without SMTP). After an SMTP send the stored parts of a one-time
 * code message (or of a console email with a one-time link) are replaced by a note, so the secret
 * does not stay at rest. The message's new state
 * is returned as the outcome, for the caller to commit.
 */
export async function deliverMessage(ctx: ServiceContext, envelope: MessageEnvelope): Promise<DeliveryOutcome | undefined> {
  if (envelope.state !== 'queued') return undefined;
  const messageId = envelope.id;
  const lease = envelope.lease_owner;
  const channel = envelope.channel as OutboundMessage['channel'];
  const transport = ctx.transport;
  if (!transport || (transport.channels && !transport.channels.includes(channel))) {
    return { id: messageId, lease, state: 'held' };
  }
  // A live WhatsApp message leaves only while the account has the channel on; otherwise it is kept (held).
  if (channel === 'whatsapp' && envelope.livemode === 1) {
    const account = await ctx.store.db
      .selectFrom('accounts')
      .select('whatsapp_enabled')
      .where('id', '=', envelope.account_id)
      .executeTakeFirst();
    if (account?.whatsapp_enabled !== 1) {
      return { id: messageId, lease, state: 'held' };
    }
  }
  const message = await getMessage(ctx.store.db, messageId);
  if (!message || message.state !== 'queued') return undefined;
  return send(ctx, transport, message, lease);
}

async function send(ctx: ServiceContext, transport: MessageTransport, message: MessageRow, lease: string | null): Promise<DeliveryOutcome> {
  const messageId = message.id;
  const channel = message.channel as OutboundMessage['channel'];
  const out = await renderMessage(ctx.store.db, message, ctx.publicUrl, ctx.secrets.linkKey);
  const template = message.template ? fillTemplate(JSON.parse(message.template) as WhatsAppTemplate, out.signingUrl) : undefined;
  await transport.send({
    channel,
    to: message.recipient,
    subject: out.subject,
    body: out.text,
    html: out.html ?? undefined,
    from: { ...(out.fromName ? { name: out.fromName } : {}), ...(out.fromEmail ? { address: out.fromEmail } : {}) },
    replyTo: out.fromEmail ?? undefined,
    ...(template ? { template } : {}),
  });
  const sentAt = nowSeconds(ctx.clock);
  const note = SCRUBBED[message.kind];
  if (note === undefined) return { id: messageId, lease, state: 'sent', sentAt };
  return { id: messageId, lease, state: 'sent', sentAt, note };
}
