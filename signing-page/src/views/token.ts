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
import { AgentClient, AgentError, type CertificateInfo, type TokenInfo } from '../agent.js';
import { ApiError } from '../api.js';
import { bdi, h, nextId, replace, safeUrl, type Child } from '../dom.js';
import * as frame from '../frame.js';
import type { Key } from '../i18n.js';
import type { State } from '../types.js';
import type { ViewContext } from './context.js';
import { button, icon, p } from './parts.js';

type Working = 'preparing' | 'awaiting_consent' | 'awaiting_pin' | 'signing' | 'completing';

type Phase =
  | { k: 'connecting' }
  | { k: 'unavailable' }
  | { k: 'not_trusted' }
  | { k: 'outdated' }
  | { k: 'no_token' }
  | { k: 'no_certificate'; pinLocked: boolean }
  | { k: 'choose' }
  | { k: 'working'; status: Working };

const WORKING_TEXT: Record<Working, Key> = {
  preparing: 'tokenPreparing',
  awaiting_consent: 'tokenAwaitingConsent',
  awaiting_pin: 'tokenAwaitingPin',
  signing: 'tokenSigningNow',
  completing: 'tokenCompleting',
};

/** Server refusals the panel explains itself (the others go to the page's alert). */
const PANEL_CODES = new Set(['certificate_invalid', 'cms_invalid', 'ticket_invalid']);

const DEFAULT_PORTS = [38611, 38612, 38613, 38614];

export function tokenPanel(ctx: ViewContext, state: State, panelTitle: HTMLElement, declineButton: HTMLButtonElement): { root: HTMLElement; destroy: () => void } {
  const { s } = ctx;
  const ports = state.token?.agent_ports.length ? state.token.agent_ports : DEFAULT_PORTS;
  const versions = state.token?.protocol_versions.length ? state.token.protocol_versions : [1];
  const downloadUrl = safeUrl(state.token?.download_url ?? null);

  const body = h('div', { class: 'form token-body', attrs: { 'data-token-state': 'connecting' } });
  const root = h(
    'aside',
    { class: 'sign-pane', attrs: { 'aria-labelledby': panelTitle.id } },
    panelTitle,
    h('div', { class: 'notice tone-info' }, icon('shield'), h('div', null, h('strong', null, s.t('tokenTitle')), p(null, s.t('tokenBody')), p(null, s.t('tokenPinNote')))),
    body,
    h('div', { class: 'pane-foot' }, declineButton),
  );

  let agent: AgentClient | null = null;
  let destroyed = false;
  let phase: Phase = { k: 'connecting' };
  let tokens: TokenInfo[] = [];
  let certificates: CertificateInfo[] = [];
  let selected: string | null = null;
  /** A message about the last attempt, shown above the certificate list. */
  let note: { text: string; tone: 'warn' | 'info' } | null = null;
  let signRequest: string | null = null;

  const usable = (c: CertificateInfo) => !c.token.pin.locked;

  function go(next: Phase, announce?: string): void {
    if (destroyed) return;
    phase = next;
    body.setAttribute('data-token-state', next.k === 'working' ? `working-${next.status}` : next.k);
    render();
    if (announce) ctx.announce(announce);
  }

  function retryButton(): HTMLButtonElement {
    return button(s.t('tokenRetry'), 'secondary', () => void connect());
  }

  function notice(tone: 'warn' | 'info', title: string, ...text: Child[]): HTMLElement {
    return h('div', { class: ['notice', `tone-${tone}`], attrs: { role: 'status' } }, icon(tone === 'warn' ? 'alert' : 'info'), h('div', null, h('strong', null, title), ...text));
  }

  function download(): Child {
    return downloadUrl
      ? h('a', { class: 'btn btn-secondary', attrs: { href: downloadUrl, target: '_blank', rel: 'noopener noreferrer' } }, s.t('tokenDownload'))
      : p('muted', s.t('tokenNoDownload'));
  }

  function render(): void {
    switch (phase.k) {
      case 'connecting':
        replace(body, h('div', { class: 'waiting' }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), h('p', null, s.t('tokenConnecting'))));
        return;
      case 'unavailable':
        replace(body, notice('warn', s.t('tokenUnavailableTitle'), p(null, s.t('tokenUnavailableBody'))), h('div', { class: 'actions' }, download(), retryButton()));
        return;
      case 'not_trusted':
        replace(body, notice('warn', s.t('tokenNotTrustedTitle'), p(null, ...s.nodes('tokenNotTrustedBody', { site: h('strong', null, bdi(location.origin)) }))), h('div', { class: 'actions' }, retryButton()));
        return;
      case 'outdated':
        replace(body, notice('warn', s.t('tokenOutdatedTitle'), p(null, s.t('tokenOutdatedBody'))), h('div', { class: 'actions' }, download(), retryButton()));
        return;
      case 'no_token':
        replace(body, noteNode(), notice('info', s.t('tokenNoTokenTitle'), p(null, s.t('tokenNoTokenBody'))), h('div', { class: 'actions' }, retryButton()));
        return;
      case 'no_certificate':
        replace(
          body,
          noteNode(),
          phase.pinLocked
            ? notice('warn', s.t('tokenPinLockedTitle'), p(null, s.t('tokenPinLockedBody')))
            : notice('warn', s.t('tokenNoCertificateTitle'), p(null, s.t('tokenNoCertificateBody'))),
          h('div', { class: 'actions' }, retryButton()),
        );
        return;
      case 'choose':
        renderChoice();
        return;
      case 'working': {
        const cancellable = phase.status === 'awaiting_consent' || phase.status === 'awaiting_pin' || phase.status === 'signing';
        const cancel = button(s.t('tokenCancel'), 'secondary', () => {
          if (agent && signRequest) agent.cancel(signRequest);
        });
        replace(
          body,
          h('div', { class: 'waiting', attrs: { role: 'status' } }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), h('p', null, s.t(WORKING_TEXT[phase.status]))),
          cancellable ? h('div', { class: 'actions' }, cancel) : null,
        );
        return;
      }
    }
  }

  function noteNode(): Child {
    return note ? h('div', { class: ['notice', `tone-${note.tone}`], attrs: { role: 'alert' } }, icon(note.tone === 'warn' ? 'alert' : 'info'), p(null, note.text)) : null;
  }

  function renderChoice(): void {
    const legendId = nextId('cert-legend');
    const name = nextId('cert');
    const dateFormat = new Intl.DateTimeFormat(s.lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB', { dateStyle: 'medium' });
    if (!selected || !certificates.some((c) => c.cert_sha256 === selected && usable(c))) selected = certificates.find(usable)?.cert_sha256 ?? null;
    const options = certificates.map((c) => {
      const id = nextId('cert-option');
      const input = h('input', {
        id,
        attrs: { type: 'radio', name, value: c.cert_sha256, checked: c.cert_sha256 === selected, disabled: !usable(c) },
        on: {
          change: () => {
            selected = c.cert_sha256;
          },
        },
      });
      const tags: Child[] = [];
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
    });
    const sign = button(s.t('tokenSign'), 'primary', () => void signWith(sign));
    sign.classList.add('btn-block');
    sign.disabled = selected === null;
    replace(
      body,
      noteNode(),
      h('div', { class: 'form cert-list', attrs: { role: 'radiogroup', 'aria-labelledby': legendId } }, h('p', { id: legendId, class: 'subtitle' }, s.t('tokenChoose')), ...options),
      sign,
    );
  }

  /** Show the agent's tokens and certificates in the right phase. */
  async function list(): Promise<void> {
    if (!agent) return;
    try {
      ({ tokens, certificates } = await agent.listCertificates());
    } catch (err) {
      agentFailed(err);
      return;
    }
    if (tokens.length === 0) go({ k: 'no_token' }, s.t('tokenNoTokenTitle'));
    else if (!certificates.some(usable)) go({ k: 'no_certificate', pinLocked: certificates.length > 0 || tokens.some((t) => t.pin.locked) }, certificates.length > 0 || tokens.some((t) => t.pin.locked) ? s.t('tokenPinLockedTitle') : s.t('tokenNoCertificateTitle'));
    else go({ k: 'choose' });
  }

  async function connect(): Promise<void> {
    note = null;
    agent?.close();
    agent = null;
    go({ k: 'connecting' });
    try {
      const client = await AgentClient.connect(ports, versions);
      if (destroyed) {
        client.close();
        return;
      }
      agent = client;
      client.onTokensChanged = () => {
        if (phase.k === 'choose' || phase.k === 'no_token' || phase.k === 'no_certificate') void list();
      };
      client.onClose = () => {
        if (agent === client && phase.k !== 'working') go({ k: 'unavailable' }, s.t('tokenUnavailableTitle'));
      };
    } catch (err) {
      agentFailed(err);
      return;
    }
    await list();
  }

  /** An agent failure outside a signature: which screen it leads to. */
  function agentFailed(err: unknown): void {
    const code = err instanceof AgentError ? err.code : 'protocol';
    if (code === 'origin_not_trusted') go({ k: 'not_trusted' }, s.t('tokenNotTrustedTitle'));
    else if (code === 'unsupported_version') go({ k: 'outdated' }, s.t('tokenOutdatedTitle'));
    else go({ k: 'unavailable' }, s.t('tokenUnavailableTitle'));
  }

  /** The text for a failed signature in the agent. */
  function signFailure(err: AgentError): string {
    switch (err.code) {
      case 'pin_incorrect':
        return s.t(err.pin?.final_try ? 'tokenPinIncorrectFinal' : 'tokenPinIncorrect');
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
        return s.t('tokenFailed', { code: err.code });
    }
  }

  /** The server refused in a way the panel explains: back to the list with that message. */
  function serverRefusal(err: ApiError): void {
    const reason = err.serverMessage ?? s.t('unexpectedError');
    note = {
      tone: 'warn',
      text: err.code === 'certificate_invalid' ? s.t('tokenWrongCertificate', { reason }) : err.code === 'ticket_invalid' ? s.t('tokenTicketExpired') : reason,
    };
    go({ k: 'choose' }, note.text);
  }

  async function signWith(signButton: HTMLButtonElement): Promise<void> {
    const certificate = certificates.find((c) => c.cert_sha256 === selected);
    if (!agent || !certificate) return;
    const client = agent;
    note = null;
    // 1. The server prepares the document for this certificate and issues the ticket.
    const prepared = await ctx.act([signButton, declineButton], async () => {
      try {
        return await ctx.api.tokenPrepare(certificate.certificate, certificate.chain);
      } catch (err) {
        if (err instanceof ApiError && PANEL_CODES.has(err.code)) return err;
        throw err;
      }
    });
    if (destroyed) return;
    if (prepared === null) return;
    if (prepared instanceof ApiError) {
      serverRefusal(prepared);
      return;
    }
    // 2. The agent asks the person (consent, PIN in its own window) and signs on the token.
    go({ k: 'working', status: 'preparing' });
    let cms: string;
    try {
      const signature = await client.sign(prepared.ticket, certificate.cert_sha256, (status) => go({ k: 'working', status }, s.t(WORKING_TEXT[status])), (id) => {
        signRequest = id;
      });
      cms = signature.cms;
    } catch (err) {
      signRequest = null;
      if (destroyed) return;
      const error = err instanceof AgentError ? err : new AgentError('protocol', String(err));
      if (error.code === 'disconnected' || error.code === 'origin_not_trusted') {
        agentFailed(error);
        return;
      }
      note = { tone: error.code === 'user_canceled' || error.code === 'canceled' ? 'info' : 'warn', text: signFailure(error) };
      if (error.code === 'pin_locked' || error.code === 'no_token' || error.code === 'certificate_not_found') await list();
      else go({ k: 'choose' });
      ctx.announce(note.text);
      return;
    }
    signRequest = null;
    // 3. The server checks the CMS, timestamps and embeds it, and records the signature.
    go({ k: 'working', status: 'completing' }, s.t('tokenCompleting'));
    const next = await ctx.act([declineButton], async () => {
      try {
        return await ctx.api.tokenComplete(cms, prepared.ticket);
      } catch (err) {
        if (err instanceof ApiError && PANEL_CODES.has(err.code)) return err;
        throw err;
      }
    });
    if (destroyed) return;
    if (next === null) {
      go({ k: 'choose' });
      return;
    }
    if (next instanceof ApiError) {
      serverRefusal(next);
      return;
    }
    if (next.step === 'signed') frame.notifyParent(next, frame.signed(next));
    ctx.show(next);
  }

  void connect();
  return {
    root,
    destroy: () => {
      destroyed = true;
      agent?.close();
      agent = null;
    },
  };
}
