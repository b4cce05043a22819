/**
 * The signing panel of step `review` for a signer with method `token` (qualified signature): finds
 * the desktop signing agent (agent.ts), lists the certificates on the plugged-in tokens, and signs —
 * POST /token/prepare with the chosen certificate → `sign` with the ticket in the agent (consent and
 * PIN happen in the agent's own window) → POST /token/complete with the CMS → the `signed` state.
 *
 * Every state has its own plain message: agent not running (with the download link), site not
 * trusted by the agent, agent too old, no token, no usable certificate, PIN locked, wrong
 * certificate, wrong PIN, canceled, too slow.
 */
import { AgentClient, AgentError, type CertificateInfo } from '../agent.js';
import { ApiError } from '../api.js';
import { bdi, h, nextId, replace, safeUrl, type Child } from '../dom.js';
import * as frame from '../frame.js';
import type { Key, Strings } from '../i18n.js';
import type { State } from '../types.js';
import type { ViewContext } from './context.js';
import { button, icon, p } from './parts.js';
import {
  initialState,
  listsOnTokenChange,
  relistsAfter,
  stateName,
  transition,
  usable,
  type AgentErrorReason,
  type Note,
  type Phase,
  type TokenEvent,
  type TokenState,
  type Working,
} from './tokenMachine.js';

const WORKING_TEXT: Record<Working, Key> = {
  preparing: 'tokenPreparing',
  awaiting_consent: 'tokenAwaitingConsent',
  awaiting_pin: 'tokenAwaitingPin',
  signing: 'tokenSigningNow',
  completing: 'tokenCompleting',
};

const AGENT_ERROR_TITLE: Record<AgentErrorReason, Key> = {
  unavailable: 'tokenUnavailableTitle',
  not_trusted: 'tokenNotTrustedTitle',
  outdated: 'tokenOutdatedTitle',
};

/** Server refusals the panel explains itself (the others go to the page's alert). */
const PANEL_CODES = new Set(['certificate_invalid', 'cms_invalid', 'ticket_invalid']);

const DEFAULT_PORTS = [38611, 38612, 38613, 38614];

/** The text for a failed signature in the agent. */
function agentFailureText(s: Strings, code: string, finalTry: boolean): string {
  switch (code) {
    case 'pin_incorrect':
      return s.t(finalTry ? 'tokenPinIncorrectFinal' : 'tokenPinIncorrect');
    case 'pin_locked':
      return s.t('tokenPinLockedBody');
    case 'user_canceled':
    case 'canceled':
      return s.t('tokenCanceled');
    case 'ticket_expired':
    case 'ticket_replayed':
    case 'timeout':
      return s.t('tokenTicketExpired');
    case 'no_token':
    case 'certificate_not_found':
      return s.t('tokenRemoved');
    case 'busy':
      return s.t('tokenBusy');
    default:
      return s.t('tokenFailed', { code });
  }
}

function noteText(s: Strings, note: Note): string {
  if (note.from === 'agent') return agentFailureText(s, note.code, note.finalTry);
  const reason = note.message ?? s.t('unexpectedError');
  return note.code === 'certificate_invalid'
    ? s.t('tokenWrongCertificate', { reason })
    : note.code === 'ticket_invalid'
      ? s.t('tokenTicketExpired')
      : reason;
}

/** What the render functions need from the panel: its strings, its state and its actions. */
interface PanelView {
  readonly s: Strings;
  readonly state: TokenState;
  readonly downloadUrl: string | null;
  retry(): void;
  select(certificate: string): void;
  sign(button: HTMLButtonElement): void;
  cancel(): void;
}

function notice(tone: 'warn' | 'info', title: string, ...text: Child[]): HTMLElement {
  return h(
    'div',
    { class: ['notice', `tone-${tone}`], attrs: { role: 'status' } },
    icon(tone === 'warn' ? 'alert' : 'info'),
    h('div', null, h('strong', null, title), ...text),
  );
}

function noteNode(v: PanelView): Child {
  const note = v.state.note;
  return note
    ? h(
        'div',
        { class: ['notice', `tone-${note.tone}`], attrs: { role: 'alert' } },
        icon(note.tone === 'warn' ? 'alert' : 'info'),
        p(null, noteText(v.s, note)),
      )
    : null;
}

const retryButton = (v: PanelView): HTMLButtonElement => button(v.s.t('tokenRetry'), 'secondary', () => v.retry());

function download(v: PanelView): Child {
  return v.downloadUrl
    ? h(
        'a',
        { class: 'btn btn-secondary', attrs: { href: v.downloadUrl, target: '_blank', rel: 'noopener noreferrer' } },
        v.s.t('tokenDownload'),
      )
    : p('muted', v.s.t('tokenNoDownload'));
}

function renderConnecting(v: PanelView): Child[] {
  return [
    h(
      'div',
      { class: 'waiting' },
      h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }),
      h('p', null, v.s.t('tokenConnecting')),
    ),
  ];
}

function renderAgentError(v: PanelView, reason: AgentErrorReason): Child[] {
  const { s } = v;
  if (reason === 'not_trusted') {
    return [
      notice(
        'warn',
        s.t('tokenNotTrustedTitle'),
        p(null, ...s.nodes('tokenNotTrustedBody', { site: h('strong', null, bdi(location.origin)) })),
      ),
      h('div', { class: 'actions' }, retryButton(v)),
    ];
  }
  const body = reason === 'outdated' ? s.t('tokenOutdatedBody') : s.t('tokenUnavailableBody');
  return [notice('warn', s.t(AGENT_ERROR_TITLE[reason]), p(null, body)), h('div', { class: 'actions' }, download(v), retryButton(v))];
}

function renderNoToken(v: PanelView): Child[] {
  return [
    noteNode(v),
    notice('info', v.s.t('tokenNoTokenTitle'), p(null, v.s.t('tokenNoTokenBody'))),
    h('div', { class: 'actions' }, retryButton(v)),
  ];
}

function renderNoCertificate(v: PanelView, pinLocked: boolean): Child[] {
  const { s } = v;
  return [
    noteNode(v),
    pinLocked
      ? notice('warn', s.t('tokenPinLockedTitle'), p(null, s.t('tokenPinLockedBody')))
      : notice('warn', s.t('tokenNoCertificateTitle'), p(null, s.t('tokenNoCertificateBody'))),
    h('div', { class: 'actions' }, retryButton(v)),
  ];
}

function certificateOption(
  v: PanelView,
  c: TokenState['certificates'][number],
  name: string,
  dateFormat: Intl.DateTimeFormat,
): HTMLElement {
  const { s } = v;
  const id = nextId('cert-option');
  const input = h('input', {
    id,
    attrs: {
      type: 'radio',
      name,
      value: c.cert_sha256,
      checked: c.cert_sha256 === v.state.selected,
      disabled: !usable(c, v.state.refused),
    },
    on: { change: () => v.select(c.cert_sha256) },
  });
  const tags: Child[] = [];
  const refusal = v.state.refused[c.cert_sha256];
  if (refusal !== undefined) tags.push(h('strong', { class: 'cert-refused' }, s.t('tokenRefusedTag', { reason: refusal })));
  if (c.token.pin.locked) tags.push(h('strong', null, s.t('tokenPinLockedTag')));
  else if (c.token.pin.final_try) tags.push(h('strong', null, s.t('tokenFinalTryTag')));
  return h(
    'div',
    { class: 'consent cert-option' },
    input,
    h(
      'label',
      { attrs: { for: id } },
      h('strong', null, bdi(c.name)),
      h('br'),
      s.nodes('tokenIssuer', { issuer: bdi(c.issuer) }),
      h('br'),
      s.t('tokenValidUntil', { date: dateFormat.format(new Date(c.not_after * 1000)) }),
      ' · ',
      s.nodes('tokenOnToken', { token: bdi(c.token.label || c.token.model) }),
      ...tags.flatMap((t) => [h('br'), t]),
    ),
  );
}

function renderChoice(v: PanelView): Child[] {
  const { s } = v;
  const legendId = nextId('cert-legend');
  const name = nextId('cert');
  const dateFormat = new Intl.DateTimeFormat(s.lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB', { dateStyle: 'medium' });
  const options = v.state.certificates.map((c) => certificateOption(v, c, name, dateFormat));
  const sign = button(s.t('tokenSign'), 'primary', () => v.sign(sign));
  sign.classList.add('btn-block');
  sign.disabled = v.state.selected === null;
  const noneAccepted = !v.state.certificates.some((c) => usable(c, v.state.refused));
  return [
    noteNode(v),
    noneAccepted ? notice('warn', s.t('tokenNoneAcceptedTitle'), p(null, s.t('tokenNoneAcceptedBody'))) : null,
    h(
      'div',
      { class: 'form cert-list', attrs: { role: 'radiogroup', 'aria-labelledby': legendId } },
      h('p', { id: legendId, class: 'subtitle' }, s.t('tokenChoose')),
      ...options,
    ),
    sign,
  ];
}

function renderWorking(v: PanelView, status: Working): Child[] {
  const cancellable = status === 'awaiting_consent' || status === 'awaiting_pin' || status === 'signing';
  return [
    h(
      'div',
      { class: 'waiting', attrs: { role: 'status' } },
      h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }),
      h('p', null, v.s.t(WORKING_TEXT[status])),
    ),
    cancellable
      ? h(
          'div',
          { class: 'actions' },
          button(v.s.t('tokenCancel'), 'secondary', () => v.cancel()),
        )
      : null,
  ];
}

/** The body of the panel in a phase; null leaves it as it is (done: the page moves to the next step). */
function renderPhase(v: PanelView, phase: Phase): Child[] | null {
  switch (phase.k) {
    case 'connecting':
      return renderConnecting(v);
    case 'agent_error':
      return renderAgentError(v, phase.reason);
    case 'no_token':
      return renderNoToken(v);
    case 'no_certificate':
      return renderNoCertificate(v, phase.pinLocked);
    case 'choose':
      return renderChoice(v);
    case 'working':
      return renderWorking(v, phase.status);
    case 'done':
      return null;
  }
}

/** Run a token API call through ctx.act; the refusals the panel explains come back as the ApiError. */
function panelCall<T>(ctx: ViewContext, buttons: readonly HTMLButtonElement[], call: () => Promise<T>): Promise<T | ApiError | null> {
  return ctx.act(buttons, async () => {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ApiError && PANEL_CODES.has(err.code)) return err;
      throw err;
    }
  });
}

/** The panel: its state (tokenMachine.ts), the agent connection, and the signature's steps. */
class TokenPanel implements PanelView {
  readonly s: Strings;
  readonly downloadUrl: string | null;
  readonly body: HTMLElement;
  state: TokenState = initialState;
  private agent: AgentClient | null = null;
  private destroyed = false;
  /** The agent's id of the signature under way (to cancel it). */
  private signRequest: string | null = null;

  constructor(
    private readonly ctx: ViewContext,
    private readonly ports: readonly number[],
    private readonly versions: readonly number[],
    downloadUrl: string | null,
    private readonly declineButton: HTMLButtonElement,
  ) {
    this.s = ctx.s;
    this.downloadUrl = downloadUrl;
    this.body = h('div', { class: 'form token-body', attrs: { 'data-token-state': 'connecting' } });
  }

  /** Apply an event; a new phase is rendered, then `announce` (of that phase) said. */
  private dispatch(event: TokenEvent, announce?: string | ((phase: Phase) => string | null)): void {
    if (this.destroyed) return;
    const before = this.state.phase;
    this.state = transition(this.state, event);
    const phase = this.state.phase;
    if (phase === before) return;
    this.body.setAttribute('data-token-state', stateName(phase));
    const children = renderPhase(this, phase);
    if (children) replace(this.body, ...children);
    const text = typeof announce === 'function' ? announce(phase) : announce;
    if (text) this.ctx.announce(text);
  }

  retry(): void {
    void this.connect();
  }

  select(certificate: string): void {
    this.dispatch({ type: 'select', certificate });
  }

  sign(signButton: HTMLButtonElement): void {
    void this.signWith(signButton);
  }

  cancel(): void {
    if (this.agent && this.signRequest) this.agent.cancel(this.signRequest);
  }

  destroy(): void {
    this.destroyed = true;
    this.agent?.close();
    this.agent = null;
  }

  async connect(): Promise<void> {
    this.agent?.close();
    this.agent = null;
    // From connecting itself the phase is made anew: the panel renders connecting again.
    this.dispatch({ type: 'connect' });
    try {
      const client = await AgentClient.connect(this.ports, this.versions);
      if (this.destroyed) {
        client.close();
        return;
      }
      this.agent = client;
      client.onTokensChanged = () => {
        if (listsOnTokenChange(this.state)) void this.list();
      };
      client.onClose = () => {
        if (this.agent === client) this.dispatch({ type: 'agent_closed' }, this.s.t('tokenUnavailableTitle'));
      };
    } catch (err) {
      this.agentFailed(err);
      return;
    }
    await this.list();
  }

  /** Show the agent's tokens and certificates in the right phase. */
  private async list(): Promise<void> {
    if (!this.agent) return;
    let tokens, certificates;
    try {
      ({ tokens, certificates } = await this.agent.listCertificates());
    } catch (err) {
      this.agentFailed(err);
      return;
    }
    const refused = await this.serverVerdicts(certificates);
    if (this.destroyed) return;
    this.dispatch({ type: 'listed', tokens, certificates, refused }, (next) =>
      next.k === 'no_token'
        ? this.s.t('tokenNoTokenTitle')
        : next.k === 'no_certificate'
          ? this.s.t(next.pinLocked ? 'tokenPinLockedTitle' : 'tokenNoCertificateTitle')
          : null,
    );
  }

  /**
   * The server's verdict on each certificate (POST /token/check: prepare's own checks, nothing
   * stored): cert_sha256 → the reason it is refused; null when the check could not be made.
   */
  private async serverVerdicts(certificates: readonly CertificateInfo[]): Promise<Record<string, string> | null> {
    const unlocked = certificates.filter((c) => !c.token.pin.locked).slice(0, 16);
    if (unlocked.length === 0) return {};
    try {
      const { certificates: verdicts } = await this.ctx.api.tokenCheck(unlocked);
      const refused: Record<string, string> = {};
      verdicts.forEach((verdict, i) => {
        if (!verdict.ok) refused[unlocked[i]!.cert_sha256] = verdict.message ?? this.s.t('unexpectedError');
      });
      return refused;
    } catch (err) {
      // An ended page session shows its own screen; any other failure leaves the choice to the person.
      if (err instanceof ApiError && err.status === 401) void this.ctx.refresh(true);
      return null;
    }
  }

  /** An agent failure outside a signature: which screen it leads to. */
  private agentFailed(err: unknown): void {
    const code = err instanceof AgentError ? err.code : 'protocol';
    this.dispatch({ type: 'agent_failed', code }, (next) => (next.k === 'agent_error' ? this.s.t(AGENT_ERROR_TITLE[next.reason]) : null));
  }

  /** The server refused in a way the panel explains: back to the list with that message. */
  private serverRefused(err: ApiError): void {
    this.dispatch({ type: 'server_refused', code: err.code, message: err.serverMessage }, () => noteText(this.s, this.state.note!));
  }

  private async signWith(signButton: HTMLButtonElement): Promise<void> {
    const selected = this.state.selected;
    const certificate = this.state.certificates.find((c) => c.cert_sha256 === selected);
    if (!this.agent || !certificate) return;
    const client = this.agent;
    this.dispatch({ type: 'sign_started' });
    // 1. The server prepares the document for this certificate and issues the ticket.
    const prepared = await panelCall(this.ctx, [signButton, this.declineButton], () =>
      this.ctx.api.tokenPrepare(certificate.certificate, certificate.chain),
    );
    if (this.destroyed || prepared === null) return;
    if (prepared instanceof ApiError) {
      this.serverRefused(prepared);
      return;
    }
    // 2. The agent asks the person (consent, PIN in its own window) and signs on the token.
    this.dispatch({ type: 'prepared' });
    const cms = await this.signInAgent(client, prepared.ticket, certificate.cert_sha256);
    if (cms === null) return;
    // 3. The server checks the CMS, timestamps and embeds it, and records the signature.
    this.dispatch({ type: 'agent_status', status: 'completing' }, this.s.t('tokenCompleting'));
    const next = await panelCall(this.ctx, [this.declineButton], () => this.ctx.api.tokenComplete(cms, prepared.ticket));
    if (this.destroyed) return;
    if (next === null) {
      this.dispatch({ type: 'complete_failed' });
      return;
    }
    if (next instanceof ApiError) {
      this.serverRefused(next);
      return;
    }
    if (next.step === 'signed') {
      this.dispatch({ type: 'completed' });
      frame.notifyParent(next, frame.signed(next));
    }
    this.ctx.show(next);
  }

  /** The signature in the agent: the CMS, or null once a failure has been shown. */
  private async signInAgent(client: AgentClient, ticket: string, certSha256: string): Promise<string | null> {
    try {
      const signature = await client.sign(
        ticket,
        certSha256,
        (status) => this.dispatch({ type: 'agent_status', status }, this.s.t(WORKING_TEXT[status])),
        (id) => {
          this.signRequest = id;
        },
      );
      this.signRequest = null;
      return signature.cms;
    } catch (err) {
      this.signRequest = null;
      if (this.destroyed) return null;
      const error = err instanceof AgentError ? err : new AgentError('protocol', String(err));
      if (error.code === 'disconnected' || error.code === 'origin_not_trusted') {
        this.agentFailed(error);
        return null;
      }
      this.dispatch({ type: 'sign_failed', code: error.code, finalTry: error.pin?.final_try ?? false });
      const note = this.state.note!;
      if (relistsAfter(error.code)) await this.list();
      this.ctx.announce(noteText(this.s, note));
      return null;
    }
  }
}

export function tokenPanel(
  ctx: ViewContext,
  state: State,
  panelTitle: HTMLElement,
  declineButton: HTMLButtonElement,
): { root: HTMLElement; destroy: () => void } {
  const { s } = ctx;
  const ports = state.token?.agent_ports.length ? state.token.agent_ports : DEFAULT_PORTS;
  const versions = state.token?.protocol_versions.length ? state.token.protocol_versions : [1];
  const panel = new TokenPanel(ctx, ports, versions, safeUrl(state.token?.download_url ?? null), declineButton);
  const root = h(
    'aside',
    { class: 'sign-pane', attrs: { 'aria-labelledby': panelTitle.id } },
    panelTitle,
    h(
      'div',
      { class: 'notice tone-info' },
      icon('shield'),
      h('div', null, h('strong', null, s.t('tokenTitle')), p(null, s.t('tokenBody')), p(null, s.t('tokenPinNote'))),
    ),
    panel.body,
    h('div', { class: 'pane-foot' }, declineButton),
  );
  void panel.connect();
  return { root, destroy: () => panel.destroy() };
}
