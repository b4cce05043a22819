/** Where messages leave the server: SMTP for email, the WhatsApp Cloud API for WhatsApp. */
export interface OutboundMessage {
  channel: 'email' | 'whatsapp';
  to: string;
  subject: string;
  /** The plain-text part (the whole message on WhatsApp). */
  body: string;
  /** The HTML part of an email. */
  html?: string;
  /** The From of an email: a display name, and an address when the server allows the account's own. */
  from?: { name?: string; address?: string };
  /** Where replies go (the account's from_email when it is not used as From). */
  replyTo?: string;
  /** WhatsApp: the approved template and its parameters (see whatsapp.ts); without it a text message is sent. */
  template?: WhatsAppTemplate;
}

/** A WhatsApp template message: its name, language, body parameters in order, and the URL button's parameter (if any). */
export interface WhatsAppTemplate {
  name: string;
  language: 'ar' | 'en';
  body: string[];
  button: string | null;
}

export interface MessageTransport {
  /** The channels it delivers; a message on another channel stays held. Absent: every channel. */
  readonly channels?: readonly OutboundMessage['channel'][];
  /** Resolves once the peer has accepted the message; rejects on any failure (the job retries). */
  send(message: OutboundMessage): Promise<void>;
  /** Release connections (pooled SMTP) when the server stops. */
  close?(): void | Promise<void>;
}
