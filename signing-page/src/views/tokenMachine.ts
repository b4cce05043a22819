/**
 * The states of the token signing panel (views/token.ts) and their transitions, as a pure function:
 * no DOM, no agent, no strings (the panel renders each state and says it).
 *
 *   connecting ──listed (+ POST /token/check)──▶ choose / no_token / no_certificate ──(tokens changed)──▶ listed again
 *        │                    │ sign: POST /token/prepare (the list stays, its buttons busy)
 *        ▼                    ▼
 *   agent_error          working: preparing → awaiting_consent → awaiting_pin → signing (the agent)
 *   (unavailable,             → completing (POST /token/complete) ──completed──▶ done
 *    not_trusted,        A refusal or a failed signature goes back to choose (or lists again) with a
 *    outdated)           note; a lost agent goes to agent_error; retry goes to connecting.
 *
 * A transition that changes the screen makes a new `phase` object; one that does not (a radio
 * choice, the start of a signature, a failure that lists again first) keeps it: the panel renders
 * when the phase object changes.
 */
import type { CertificateInfo, TokenInfo } from '@tawqi/shared';

/** What happens in the agent and on the server once a certificate is chosen. */
export type Working = 'preparing' | 'awaiting_consent' | 'awaiting_pin' | 'signing' | 'completing';

export type AgentErrorReason = 'unavailable' | 'not_trusted' | 'outdated';

export type Phase =
  | { k: 'connecting' }
  | { k: 'agent_error'; reason: AgentErrorReason }
  | { k: 'no_token' }
  | { k: 'no_certificate'; pinLocked: boolean }
  | { k: 'choose' }
  | { k: 'working'; status: Working }
  | { k: 'done' };

/** A message about the last attempt, shown above the certificate list. */
export type Note =
  | { from: 'agent'; tone: 'warn' | 'info'; code: string; finalTry: boolean }
  | { from: 'server'; tone: 'warn'; code: string; message: string | null };

export interface TokenState {
  phase: Phase;
  tokens: readonly TokenInfo[];
  certificates: readonly CertificateInfo[];
  /** The chosen certificate (cert_sha256). */
  selected: string | null;
  /** Certificates the server refuses (POST /token/check), by cert_sha256: the reason the signer reads. */
  refused: Readonly<Record<string, string>>;
  note: Note | null;
}

export type TokenEvent =
  /** (Re)connect to the agent. */
  | { type: 'connect' }
  /** Connecting, listing or signing failed in the agent itself (AgentError code). */
  | { type: 'agent_failed'; code: string }
  /** The agent's connection closed. */
  | { type: 'agent_closed' }
  /**
   * The agent's list, with the server's verdict on each certificate (`refused`: cert_sha256 → reason);
   * `refused` null: the check could not be made, so nothing is pre-selected (prepare still decides).
   */
  | {
      type: 'listed';
      tokens: readonly TokenInfo[];
      certificates: readonly CertificateInfo[];
      refused: Readonly<Record<string, string>> | null;
    }
  | { type: 'select'; certificate: string }
  /** The sign button: POST /token/prepare is under way. */
  | { type: 'sign_started' }
  /** The server refused in a way the panel explains (PANEL_CODES). */
  | { type: 'server_refused'; code: string; message: string | null }
  | { type: 'prepared' }
  | { type: 'agent_status'; status: Working }
  /** The signature failed in the agent (not a lost agent: that is agent_failed). */
  | { type: 'sign_failed'; code: string; finalTry: boolean }
  /** The POST /token/complete failed (the page's alert says why). */
  | { type: 'complete_failed' }
  | { type: 'completed' };

export const initialState: TokenState = {
  phase: { k: 'connecting' },
  tokens: [],
  certificates: [],
  selected: null,
  refused: {},
  note: null,
};

/** A certificate can be chosen: its token's PIN is not locked and the server does not refuse it. */
export const usable = (c: CertificateInfo, refused: TokenState['refused']): boolean =>
  !c.token.pin.locked && !Object.hasOwn(refused, c.cert_sha256);

/** Signature failures after which the tokens are listed again (the token or its PIN changed). */
export const relistsAfter = (code: string): boolean => code === 'pin_locked' || code === 'no_token' || code === 'certificate_not_found';

/** Failures that mean the agent itself is gone or refuses this site. */
const agentGone = (code: string): boolean => code === 'disconnected' || code === 'origin_not_trusted';

/** The screens on which a change of the plugged-in tokens lists them again. */
export const listsOnTokenChange = (state: TokenState): boolean =>
  state.phase.k === 'choose' || state.phase.k === 'no_token' || state.phase.k === 'no_certificate';

/** The panel's `data-token-state`. */
export function stateName(phase: Phase): string {
  if (phase.k === 'working') return `working-${phase.status}`;
  if (phase.k === 'agent_error') return phase.reason;
  return phase.k;
}

function agentError(code: string): Phase {
  return {
    k: 'agent_error',
    reason: code === 'origin_not_trusted' ? 'not_trusted' : code === 'unsupported_version' ? 'outdated' : 'unavailable',
  };
}

/**
 * After listing: no token, no certificate the person can use (PIN locked, or none at all), or the
 * choice — where only an acceptable certificate is ever pre-selected, and none when the server
 * refuses every one (they stay listed, disabled, each with its reason).
 */
function listed(state: TokenState, event: Extract<TokenEvent, { type: 'listed' }>): TokenState {
  const { tokens, certificates } = event;
  const refused = event.refused ?? {};
  const next = { ...state, tokens, certificates, refused };
  if (tokens.length === 0) return { ...next, phase: { k: 'no_token' } };
  const unlocked = certificates.filter((c) => !c.token.pin.locked);
  if (unlocked.length === 0)
    return { ...next, phase: { k: 'no_certificate', pinLocked: certificates.length > 0 || tokens.some((t) => t.pin.locked) } };
  const ok = (c: CertificateInfo) => usable(c, refused);
  const { selected } = state;
  const keep = selected !== null && certificates.some((c) => c.cert_sha256 === selected && ok(c));
  const first = event.refused === null ? null : (certificates.find(ok)?.cert_sha256 ?? null);
  return { ...next, phase: { k: 'choose' }, selected: keep ? selected : first };
}

export function transition(state: TokenState, event: TokenEvent): TokenState {
  switch (event.type) {
    case 'connect':
      return { ...state, phase: { k: 'connecting' }, note: null };
    case 'agent_failed':
      return { ...state, phase: agentError(event.code) };
    case 'agent_closed':
      // During a signature the signature's own failure says what happened.
      return state.phase.k === 'working' ? state : { ...state, phase: agentError('disconnected') };
    case 'listed':
      return listed(state, event);
    case 'select':
      return { ...state, selected: event.certificate };
    case 'sign_started':
      return { ...state, note: null };
    case 'server_refused':
      return { ...state, phase: { k: 'choose' }, note: { from: 'server', tone: 'warn', code: event.code, message: event.message } };
    case 'prepared':
      return { ...state, phase: { k: 'working', status: 'preparing' } };
    case 'agent_status':
      return { ...state, phase: { k: 'working', status: event.status } };
    case 'sign_failed': {
      if (agentGone(event.code)) return { ...state, phase: agentError(event.code) };
      const canceled = event.code === 'user_canceled' || event.code === 'canceled';
      const note: Note = { from: 'agent', tone: canceled ? 'info' : 'warn', code: event.code, finalTry: event.finalTry };
      // Listing again decides the screen (listed); until then the working screen stays.
      return relistsAfter(event.code) ? { ...state, note } : { ...state, phase: { k: 'choose' }, note };
    }
    case 'complete_failed':
      return { ...state, phase: { k: 'choose' } };
    case 'completed':
      return { ...state, phase: { k: 'done' } };
  }
}
