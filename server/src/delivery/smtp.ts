import { createTransport } from 'nodemailer';
import type { MessageTransport, OutboundMessage } from '../transport.js';

/** Everything the SMTP transport needs, resolved from the settings (see index.ts). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (smtps, usually 465). */
  secure: boolean;
  /** Fail unless the relay upgrades with STARTTLS. */
  requireTLS: boolean;
  auth: { user: string; pass: string } | null;
  /** Default sender. */
  from: { name?: string; address: string };
  rejectUnauthorized: boolean;
  /** Use a message's own From address (an account's from_email) instead of only its display name. */
  allowAccountFrom: boolean;
}

/** Addresses out of an error text, so a failed delivery logs no email address (DESIGN §3, logs). */
function redact(text: string): string {
  return text.replace(/[^\s<>"'@]+@[^\s<>"']+/g, '<address>');
}

/**
 * Email over SMTP with a pooled nodemailer transport: a few connections are kept open and reused
 * while mail flows and closed when idle. Each send resolves when the relay has accepted the message
 * (250 after DATA); any failure rejects, and the delivery job retries with backoff.
 */
export class SmtpTransport implements MessageTransport {
  readonly channels = ['email'] as const;
  private readonly mailer;

  constructor(private readonly settings: SmtpSettings) {
    this.mailer = createTransport({
      pool: true,
      maxConnections: 3,
      maxMessages: 100,
      idleTimeout: 30_000,
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      requireTLS: settings.requireTLS,
      auth: settings.auth ?? undefined,
      tls: { rejectUnauthorized: settings.rejectUnauthorized, minVersion: 'TLSv1.2' },
      connectionTimeout: 20_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
      // Messages are built from our own templates: never read a file or a URL while composing.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(m: OutboundMessage): Promise<void> {
    if (m.channel !== 'email') throw new Error(`the SMTP transport does not deliver ${m.channel} messages`);
    const defaultFrom = this.settings.from;
    const address = this.settings.allowAccountFrom && m.from?.address ? m.from.address : defaultFrom.address;
    const name = m.from?.name ?? defaultFrom.name;
    try {
      await this.mailer.sendMail({
        from: name ? { name, address } : address,
        to: m.to,
        replyTo: m.replyTo && m.replyTo !== address ? m.replyTo : undefined,
        subject: m.subject,
        text: m.body,
        html: m.html,
      });
    } catch (err) {
      const e = err as { code?: string; responseCode?: number; message?: string };
      throw new Error(
        `SMTP ${[e.code, e.responseCode].filter(Boolean).join(' ')}: ${redact(e.message ?? String(err))}`.replace(/ {2,}/g, ' '),
        { cause: err },
      );
    }
  }

  close(): void {
    this.mailer.close();
  }
}
