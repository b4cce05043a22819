import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../services/context.js';
import { LINK_PLACEHOLDER } from '../services/invitations.js';
import { signingUrl } from '../services/signingLinks.js';

/**
 * Deliver one queued message. The signing link is rendered now, from the signer id, so no stored
 * message holds a usable link. Without a configured transport the message stays queued
 * ('held'), visible to the operator; the SMTP and WhatsApp transports plug in here.
 */
export async function deliverMessage(ctx: ServiceContext, messageId: number): Promise<void> {
  const message = await ctx.store.db.selectFrom('messages').selectAll().where('id', '=', messageId).executeTakeFirst();
  if (!message || message.state !== 'queued') return;
  const transport = ctx.transport;
  if (!transport) {
    await ctx.store.db.updateTable('messages').set({ state: 'held' }).where('id', '=', messageId).execute();
    return;
  }
  let body = message.body;
  if (message.signer_id && body.includes(LINK_PLACEHOLDER)) {
    const signer = await ctx.store.db.selectFrom('signers').select(['id', 'link_version']).where('id', '=', message.signer_id).executeTakeFirst();
    if (signer) body = body.replace(LINK_PLACEHOLDER, signingUrl(ctx.publicUrl, ctx.secrets.linkKey, signer.id, signer.link_version));
  }
  await transport.send({ channel: message.channel as 'email' | 'whatsapp', to: message.recipient, subject: message.subject, body });
  await ctx.store.db.updateTable('messages').set({ state: 'sent', sent_at: nowSeconds(ctx.clock) }).where('id', '=', messageId).execute();
}
