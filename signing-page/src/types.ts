/** The page ↔ server contract (signing-page/API.md): the state the server sends and the frame messages. */

export type Language = 'ar' | 'en';

export type Step =
  | 'closed'
  | 'not_your_turn'
  | 'access_code'
  | 'otp'
  | 'identity'
  | 'identity_wait'
  | 'identity_declined'
  | 'identity_hold'
  | 'review'
  | 'signed'
  | 'declined';

export type ClosedReason = 'completed' | 'declined' | 'expired' | 'canceled';

export interface State {
  language: Language;
  livemode: boolean;
  step: Step;
  closed_reason: ClosedReason | null;
  request: { id: string; title: string; status: string; legal_level: 'ses' | 'aes' | 'qes' };
  signer: {
    id: string;
    name: string;
    status: string;
    order: number;
    method: 'draw' | 'token';
    identity_status: string;
  };
  access: { attempts_left: number; locked: boolean } | null;
  otp: {
    sent: boolean;
    destination: string | null;
    expires_at: number | null;
    attempts_left: number;
    locked: boolean;
    resend_at: number | null;
  };
  document: { text: string } | null;
  branding: {
    brand_name: string | null;
    logo_url: string | null;
    brand_color: string | null;
    button_color: string | null;
    hide_powered: boolean;
    welcome: string | null;
  };
  embed: { origin: string } | null;
  finish: { redirect_url: string | null } | null;
  /** Method token: the desktop agent's ports and protocol versions, and where to download it; else null. */
  token?: { agent_ports: number[]; protocol_versions: number[]; download_url: string | null } | null;
}

/** POST /token/prepare: the sign ticket the page hands to the agent. */
export interface TokenPrepared {
  ticket: string;
  preview_url: string;
  digest: string;
  cert_sha256: string;
  expires_at: number;
}

/** The API's error envelope; extra fields (attempts_left, reason, …) sit beside the standard ones. */
export interface ErrorBody {
  type?: string;
  code?: string;
  message?: string;
  param?: string | null;
  request_id?: string;
  [extra: string]: unknown;
}

/** Messages to the embedding page (embedded mode only). */
export type FrameMessage =
  | { type: 'svc:viewed'; signature_request: string; signer: string }
  | { type: 'svc:signed'; signature_request: string; signer: string }
  | { type: 'svc:declined'; signature_request: string; signer: string; reason: string | null };
