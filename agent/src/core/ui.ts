/**
 * What a shell (CLI terminal, Electron windows) provides to the core: the consent question and the
 * PIN prompt. The PIN only ever comes from here — never from the WebSocket.
 */
import type { CertificateInfo, PinState, TokenInfo } from '@tawqi/shared';
import type { Preview } from './preview.js';

export interface ConsentRequest {
  /** The requesting server's origin and the fingerprint of its pinned key. */
  origin: string;
  serverKeyFingerprint: string;
  title: string;
  pages: number;
  requestId: string;
  signerId: string;
  /** Hex SHA-256 of the document bytes to be signed (the PDF's ByteRange). */
  digest: string;
  /** Unix seconds: the ticket's expiry; the request is withdrawn then. */
  expiresAt: number;
  certificate: CertificateInfo;
  preview: Preview;
}

export interface PinRequest {
  origin: string;
  title: string;
  certificate: CertificateInfo;
  token: TokenInfo;
  /** The token's PIN state read just before asking, shown before the user types. */
  pin: PinState;
}

export type AgentNotice =
  | { kind: 'signed'; origin: string; title: string }
  | { kind: 'sign-failed'; origin: string; code: string; message: string; pin?: PinState }
  | { kind: 'origin-refused'; origin: string | null };

export interface AgentUi {
  /** Shows the request (title, server, certificate, digest, preview) and resolves true only on the user's yes. */
  confirmSign(request: ConsentRequest, signal: AbortSignal): Promise<boolean>;
  /** Asks for the PIN; resolves the UTF-8 bytes (the core wipes them after use) or null when canceled. */
  askPin(request: PinRequest, signal: AbortSignal): Promise<Uint8Array | null>;
  /** For PIN-pad readers: tells the user to type on the reader; the returned function closes the notice. */
  showPinPad?(request: PinRequest): () => void;
  notify?(notice: AgentNotice): void;
}
