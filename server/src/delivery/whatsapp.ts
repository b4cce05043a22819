import type { Config } from '../config.js';
import type { Account } from '../store/accounts.js';
import type { Tx } from '../store/db.js';
import { queueMessage, type OutgoingMessage } from '../store/messages.js';
import type { MessageTransport, OutboundMessage, WhatsAppTemplate } from '../transport.js';

/**
 * WhatsApp through the WhatsApp Business Cloud API (Meta). Business-initiated messages must be
 * approved message templates, so every message the server sends is a `template` message:
 *
 *   POST {TAWQI_WHATSAPP_API_URL}/{TAWQI_WHATSAPP_API_VERSION}/{TAWQI_WHATSAPP_PHONE_NUMBER_ID}/messages
 *   Authorization: Bearer {TAWQI_WHATSAPP_TOKEN}
 *   {"messaging_product":"whatsapp","recipient_type":"individual","to":"201001234567","type":"template",
 *    "template":{"name":…,"language":{"policy":"deterministic","code":"ar"},"components":[…]}}
 *
 * The templates the operator creates in WhatsApp Manager (names are settings):
 *   invitation / reminder (category utility): body {{1}} the signer's name, {{2}} the document
 *     title, {{3}} the signing link;
 *   one-time code (category authentication, "copy code" button): body {{1}} the code, and the
 *     button's URL parameter the code again (Meta's documented shape for authentication templates).
 * In each language the server writes (ar, en). The signing link is stored as the token
 * {{signing_url}} and put in at delivery time, like the email's; a code message's parameters are
 * scrubbed once it has left.
 */
export const LINK_TOKEN = '{{signing_url}}';

export interface WhatsAppSettings {
  baseUrl: string;
  version: string;
  phoneNumberId: string;
  token: string;
  templates: { invitation: string; reminder: string; otp: string | null };
  timeoutMs: number;
}

/** The platform's WhatsApp settings, or null when WhatsApp is not configured (not enabled on the platform). */
export function whatsappSettings(config: Config): WhatsAppSettings | null {
  if (!config.TAWQI_WHATSAPP_TOKEN || !config.TAWQI_WHATSAPP_PHONE_NUMBER_ID) return null;
  return {
    baseUrl: config.TAWQI_WHATSAPP_API_URL.replace(/\/+$/, ''),
    version: config.TAWQI_WHATSAPP_API_VERSION,
    phoneNumberId: config.TAWQI_WHATSAPP_PHONE_NUMBER_ID,
    token: config.TAWQI_WHATSAPP_TOKEN,
    templates: {
      invitation: config.TAWQI_WHATSAPP_TEMPLATE_INVITATION,
      reminder: config.TAWQI_WHATSAPP_TEMPLATE_REMINDER,
      otp: config.TAWQI_WHATSAPP_TEMPLATE_OTP ?? null,
    },
    timeoutMs: config.TAWQI_WHATSAPP_TIMEOUT_MS,
  };
}

/** The WhatsApp channel in live mode: configured on the platform and switched on for the account (`tawqi account set --whatsapp on`). */
export function whatsappChannelAvailable(config: Config, account: Pick<Account, 'whatsapp_enabled'>): boolean {
  return whatsappSettings(config) !== null && account.whatsapp_enabled;
}

/**
 * One-time codes by WhatsApp: live mode, the channel available, and an authentication template
 * configured. In test mode WhatsApp is never sent (spec part 5), so codes go by email.
 */
export function whatsappCodesEnabled(config: Config, account: Pick<Account, 'whatsapp_enabled'>, livemode: boolean): boolean {
  return livemode && whatsappChannelAvailable(config, account) && Boolean(config.TAWQI_WHATSAPP_TEMPLATE_OTP);
}

/** Invitation or reminder: name, title and the link (token, filled in at delivery). */
export function signingTemplate(
  config: Config,
  kind: 'invitation' | 'reminder',
  language: 'ar' | 'en',
  name: string,
  title: string,
): WhatsAppTemplate {
  return {
    name: kind === 'invitation' ? config.TAWQI_WHATSAPP_TEMPLATE_INVITATION : config.TAWQI_WHATSAPP_TEMPLATE_REMINDER,
    language,
    body: [name, title, LINK_TOKEN],
    button: null,
  };
}

/** A one-time code (authentication template with a copy-code button). */
export function otpTemplate(config: Config, language: 'ar' | 'en', code: string): WhatsAppTemplate | null {
  const name = config.TAWQI_WHATSAPP_TEMPLATE_OTP;
  return name ? { name, language, body: [code], button: code } : null;
}

/** Fill the link token of a stored template (null link: left as is, the message has no link). */
export function fillTemplate(t: WhatsAppTemplate, signingUrl: string | null): WhatsAppTemplate {
  const fill = (v: string) => (signingUrl !== null ? v.replaceAll(LINK_TOKEN, signingUrl) : v);
  return { ...t, body: t.body.map(fill), button: t.button === null ? null : fill(t.button) };
}

/** Queue a WhatsApp message with its template in the caller's transaction, due at `deliverAt` (or held); returns its id. */
export async function queueWhatsAppMessage(
  tx: Tx,
  m: Omit<OutgoingMessage, 'channel' | 'blocks' | 'template'> & { template: WhatsAppTemplate | null },
  deliverAt: number,
  hold = false,
): Promise<number> {
  return queueMessage(tx, whatsAppMessage(m), deliverAt, hold);
}

/** The outgoing message of a WhatsApp template message (its template stored as JSON). */
export function whatsAppMessage(
  m: Omit<OutgoingMessage, 'channel' | 'blocks' | 'template'> & { template: WhatsAppTemplate | null },
): OutgoingMessage {
  const { template, ...rest } = m;
  return { ...rest, channel: 'whatsapp', template: template === null ? null : JSON.stringify(template) };
}

/** A number for a log line or an audit event: every digit but the last four starred. */
export function maskNumber(phone: string): string {
  return phone.length <= 4 ? '****' : `${'*'.repeat(phone.length - 4)}${phone.slice(-4)}`;
}

/** The Cloud API body of one message: a template message, or a text message when no template is stored (older held messages). */
export function cloudApiBody(m: OutboundMessage): Record<string, unknown> {
  const to = m.to.replace(/^\+/, '');
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  const t = m.template;
  if (!t) return { ...base, type: 'text', text: { preview_url: true, body: m.body } };
  const components: Record<string, unknown>[] = [{ type: 'body', parameters: t.body.map((text) => ({ type: 'text', text })) }];
  if (t.button !== null) components.push({ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: t.button }] });
  return { ...base, type: 'template', template: { name: t.name, language: { policy: 'deterministic', code: t.language }, components } };
}

/** Thrown when the Cloud API refuses a message (its error code and message, the number masked). */
export class WhatsAppError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/**
 * The Cloud API transport. Each send resolves once Meta has accepted the message (200 with a
 * message id); any other answer, a timeout or a network failure rejects, and the delivery job
 * retries with backoff.
 */
export class WhatsAppTransport implements MessageTransport {
  readonly channels = ['whatsapp'] as const;

  constructor(private readonly settings: WhatsAppSettings) {}

  get endpoint(): string {
    return `${this.settings.baseUrl}/${this.settings.version}/${encodeURIComponent(this.settings.phoneNumberId)}/messages`;
  }

  async send(m: OutboundMessage): Promise<void> {
    if (m.channel !== 'whatsapp') throw new Error(`the WhatsApp transport does not deliver ${m.channel} messages`);
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.settings.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(cloudApiBody(m)),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      throw new WhatsAppError(`WhatsApp Cloud API unreachable for ${maskNumber(m.to)}: ${(err as Error).message}`, 0, null);
    }
    const text = await res.text();
    let parsed: { messages?: { id?: string }[]; error?: { message?: string; code?: number } } = {};
    try {
      parsed = text ? (JSON.parse(text) as typeof parsed) : {};
    } catch {
      parsed = {};
    }
    if (res.ok && parsed.messages?.[0]?.id) return;
    const reason = parsed.error?.message ?? `HTTP ${res.status}`;
    throw new WhatsAppError(
      `WhatsApp Cloud API refused the message to ${maskNumber(m.to)}: ${reason.replaceAll(m.to.replace(/^\+/, ''), '<number>')}`,
      res.status,
      parsed.error?.code ?? null,
    );
  }
}
