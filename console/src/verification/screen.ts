/**
 * The Company verification page (/console/verification, issue 16 point 3; spec part 5): the
 * account's state (none, pending, approved, rejected with the reviewer's reason) and what comes
 * next, the representative's identity check (representative.ts), the company documents
 * (documents.ts) and the submission for the operator's review. Every user of the account reads it;
 * only the owner (company.verify) acts, and only while no round is under review or approved. The
 * representative comes back here from the identity provider's (or the simulation's) page.
 */
import { fillNodes, h, replace } from '@tawqi/signing-page/dom';
import { button, icon, p } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import { confirmDialog } from '../requests/dialog.js';
import { when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { messageSlot } from '../views/notice.js';
import { pageScreen } from '../views/parts.js';
import { documentsPart } from './documents.js';
import { canVerify, verificationApi, type CompanyVerificationView } from './model.js';
import { part, type VerificationPage } from './page.js';
import { representativePart } from './representative.js';

const TONE = { none: 'muted', pending: 'warn', approved: 'ok', rejected: 'bad' } as const;

export function verificationScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const messages = messageSlot();
  const body = h('div', { class: 'kyb', attrs: { 'aria-busy': 'true' } }, p('muted', s.t('loading')));
  const screen = pageScreen({ title: s.t('navVerification'), intro: s.t('kybIntro') }, messages.slot, body);
  const page: VerificationPage = {
    ctx,
    api: verificationApi(ctx.api),
    owner: canVerify(ctx.session?.permissions),
    say: messages.say,
    reload: async (message) => {
      try {
        const view = await page.api.view();
        replace(body, statePart(page, view), representativePart(page, view), documentsPart(page, view), submitPart(page, view));
        if (message) messages.say(message, 'ok');
      } catch (err) {
        messages.say(errorText(s, err), 'bad');
      } finally {
        body.removeAttribute('aria-busy');
      }
    },
  };
  void page.reload();
  return screen;
}

/** The state: its badge, what it means and what happens next, the reviewer's reason, what live keys do. */
function statePart(page: VerificationPage, v: CompanyVerificationView): HTMLElement {
  const { s } = page.ctx;
  const reason = v.submission?.rejection_reason;
  const decided = v.submission?.decided_at ?? null;
  const submitted = v.submission?.submitted_at ?? null;
  const liveKeys = (key: Key) => p('kyb-live', icon(v.status === 'approved' ? 'check' : 'lock'), h('span', null, ...liveText(page, key)));
  return part(
    'kyb-state',
    s.t('kybStateTitle'),
    h('p', { class: 'kyb-status' }, h('span', { class: ['pill', `pill-${TONE[v.status]}`] }, s.t(`kybStatus_${v.status}`))),
    p(null, s.t(`kybNext_${v.status}`)),
    reason
      ? h(
          'div',
          { class: 'notice tone-bad kyb-reason' },
          icon('alert'),
          h('div', null, h('p', { class: 'kyb-reason-label' }, s.t('kybReason')), h('p', { attrs: { dir: 'auto' } }, reason)),
        )
      : null,
    submitted && v.status !== 'none' ? p('muted small', s.t('kybSubmittedAt', { when: when(s, submitted) })) : null,
    decided && (v.status === 'approved' || v.status === 'rejected')
      ? p('muted small', s.t('kybDecidedAt', { when: when(s, decided) }))
      : null,
    liveKeys(v.status === 'approved' ? 'kybLiveOn' : 'kybLiveOff'),
    page.owner ? null : p('muted', s.t('kybReadOnly')),
  );
}

function liveText(page: VerificationPage, key: Key) {
  const code = (text: string) => h('code', { class: 'mono', attrs: { dir: 'ltr' } }, text);
  return fillNodes(page.ctx.s.t(key), { error: code('403 kyb_required') });
}

/** The submission: the button when the state allows it, or why not. */
function submitPart(page: VerificationPage, v: CompanyVerificationView): HTMLElement | null {
  const { s } = page.ctx;
  if (!page.owner || !v.editable) return null;
  const why: Key[] = [];
  if (v.representative?.status !== 'approved') why.push('kybWhyRepresentative');
  if (v.documents.length === 0) why.push('kybWhyDocuments');
  const submit = button(s.t('kybSubmit'), 'primary', () => void confirmSubmit(page, submit));
  const reasons = h(
    'ul',
    { id: 'kyb-why', class: 'kyb-why' },
    why.map((k) => h('li', null, s.t(k))),
  );
  if (!v.can_submit) {
    submit.disabled = true;
    submit.setAttribute('aria-describedby', 'kyb-why');
  }
  return part(
    'kyb-submit',
    s.t('kybSubmitTitle'),
    p('muted', s.t('kybSubmitIntro')),
    v.can_submit ? null : h('div', null, p(null, s.t('kybWhyNot')), reasons),
    h('div', { class: 'actions' }, submit),
  );
}

async function confirmSubmit(page: VerificationPage, submit: HTMLButtonElement): Promise<void> {
  const { s } = page.ctx;
  const yes = await confirmDialog(s, {
    title: s.t('kybSubmitConfirmTitle'),
    body: s.t('kybSubmitConfirmBody'),
    confirm: s.t('kybSubmit'),
    cancel: s.t('kybNotYet'),
    tone: 'primary',
  });
  if (!yes) return;
  submit.setAttribute('aria-busy', 'true');
  try {
    await page.api.submit();
  } catch (err) {
    submit.removeAttribute('aria-busy');
    page.say(errorText(s, err), 'bad');
    return;
  }
  await page.reload(s.t('kybSubmitted'));
}
