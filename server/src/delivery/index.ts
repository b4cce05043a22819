import { parseMailbox, type Config } from '../config.js';
import { SmtpTransport, type SmtpSettings } from './smtp.js';
import type { MessageTransport, OutboundMessage } from '../transport.js';
import { WhatsAppTransport, whatsappSettings } from './whatsapp.js';

export type { MessageTransport, OutboundMessage, WhatsAppTemplate } from '../transport.js';

/**
 * The SMTP settings named by the configuration, or null when no relay is configured. The config
 * schema has already checked them together (config.ts, smtpProblems).
 */
export function smtpSettings(config: Config): SmtpSettings | null {
  let host: string;
  let port: number;
  let secure: boolean;
  let auth: SmtpSettings['auth'] = null;
  if (config.TAWQI_SMTP_URL) {
    const url = new URL(config.TAWQI_SMTP_URL);
    secure = url.protocol === 'smtps:';
    host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    port = url.port ? Number(url.port) : secure ? 465 : 587;
    if (url.username) auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  } else if (config.TAWQI_SMTP_HOST) {
    host = config.TAWQI_SMTP_HOST;
    secure = config.TAWQI_SMTP_SECURE ?? false;
    port = config.TAWQI_SMTP_PORT ?? (secure ? 465 : 587);
    if (config.TAWQI_SMTP_USER && config.TAWQI_SMTP_PASSWORD) auth = { user: config.TAWQI_SMTP_USER, pass: config.TAWQI_SMTP_PASSWORD };
  } else {
    return null;
  }
  const from = parseMailbox(config.TAWQI_SMTP_FROM ?? auth?.user ?? '');
  if (!from) throw new Error('TAWQI_SMTP_FROM is needed with SMTP');
  return {
    host,
    port,
    secure,
    requireTLS: config.TAWQI_SMTP_REQUIRE_TLS ?? false,
    auth,
    from,
    rejectUnauthorized: config.TAWQI_SMTP_TLS_REJECT_UNAUTHORIZED,
    allowAccountFrom: config.TAWQI_SMTP_ACCOUNT_FROM,
  };
}

/** Several transports behind one: each message goes to the transport of its channel. */
export class ChannelRouter implements MessageTransport {
  readonly channels: readonly OutboundMessage['channel'][];

  constructor(private readonly transports: readonly (MessageTransport & { channels: readonly OutboundMessage['channel'][] })[]) {
    this.channels = transports.flatMap((t) => t.channels);
  }

  send(m: OutboundMessage): Promise<void> {
    const t = this.transports.find((x) => x.channels.includes(m.channel));
    if (!t) return Promise.reject(new Error(`no transport for ${m.channel} messages`));
    return t.send(m);
  }

  async close(): Promise<void> {
    for (const t of this.transports) await t.close?.();
  }
}

/**
 * The transport the server delivers messages with: SMTP for email and the WhatsApp Cloud API for
 * WhatsApp, each when configured. Undefined when nothing is configured: every message is then kept
 * in the database as 'held', for `tawqi mail`; a channel without a transport keeps its messages held.
 */
export function transportFromConfig(config: Config): MessageTransport | undefined {
  const smtp = smtpSettings(config);
  const whatsapp = whatsappSettings(config);
  const transports = [...(smtp ? [new SmtpTransport(smtp)] : []), ...(whatsapp ? [new WhatsAppTransport(whatsapp)] : [])];
  if (transports.length === 0) return undefined;
  return transports.length === 1 ? transports[0] : new ChannelRouter(transports);
}
