/** Where messages leave the server: SMTP for email, the WhatsApp Cloud API for WhatsApp. */
export interface OutboundMessage {
  channel: 'email' | 'whatsapp';
  to: string;
  subject: string;
  body: string;
}

export interface MessageTransport {
  send(message: OutboundMessage): Promise<void>;
}
