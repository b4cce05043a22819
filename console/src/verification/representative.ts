/**
 * The representative's identity check on the Company verification page: its state and, once the
 * result is in, the name read from the document and whether it matches. The owner starts it (or
 * resumes an open one: the same name resumes the same check) with the representative's name; the
 * answer is a link to the identity provider's page, or to the simulation page in a test
 * installation, from which the representative comes back to this page.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { icon, p } from '@tawqi/signing-page/kit';
import { Form } from '../form.js';
import type { Key } from '../i18n.js';
import { when } from '../requests/model.js';
import type { CompanyVerificationView, Representative, StartedCheck } from './model.js';
import { part, type VerificationPage } from './page.js';

const TONE: Record<string, string> = {
  pending: 'muted',
  in_review: 'warn',
  resubmission_requested: 'warn',
  approved: 'ok',
  declined: 'bad',
};

export function representativePart(page: VerificationPage, v: CompanyVerificationView): HTMLElement {
  const { s } = page.ctx;
  const rep = v.representative;
  // An approved check stays for the next rounds; one in review at the provider cannot be restarted.
  const startable = page.owner && v.editable && rep?.status !== 'approved' && rep?.status !== 'in_review';
  return part(
    'kyb-rep',
    s.t('kybRepTitle'),
    p('muted', s.t('kybRepIntro')),
    rep ? facts(page, rep) : p(null, s.t('kybRepNone')),
    rep?.simulated ? p('muted small', s.t('kybRepSimulated')) : null,
    startable ? startForm(page, rep) : null,
  );
}

function facts(page: VerificationPage, rep: Representative): HTMLElement {
  const { s } = page.ctx;
  const fact = (label: Key, value: Node | string) => h('div', { class: 'kyb-fact' }, h('dt', null, s.t(label)), h('dd', null, value));
  const status = rep.status ?? 'pending';
  const match = rep.name_match;
  return h(
    'dl',
    { class: 'kyb-facts' },
    fact('kybRepName', bdi(rep.name)),
    fact('kybRepStatus', h('span', { class: ['pill', `pill-${TONE[status] ?? 'muted'}`] }, s.t(`kybRep_${status}`))),
    match?.document_name ? fact('kybRepDocumentName', bdi(match.document_name)) : null,
    match && match.state !== 'pending'
      ? fact(
          'kybRepMatch',
          h('span', { class: 'kyb-match' }, icon(match.state === 'match' ? 'check' : 'alert'), s.t(`kybMatch_${match.state}`)),
        )
      : null,
    rep.completed_at ? fact('kybRepCompleted', when(s, rep.completed_at)) : null,
  );
}

/** The name, then a link to the check (the provider's page or the simulation), which takes the focus. */
function startForm(page: VerificationPage, rep: Representative | null): HTMLElement {
  const { s } = page.ctx;
  const slot = h('div', { class: 'kyb-start' });
  const resume = rep?.status === 'pending' || rep?.status === 'resubmission_requested';
  const form = new Form(
    s,
    [
      {
        name: 'name',
        label: s.t('kybRepNameLabel'),
        hint: s.t('kybRepNameHint'),
        autocomplete: 'name',
        value: rep?.name ?? '',
        check: (value) => (value.length < 2 ? s.t('kybRepNameRequired') : null),
      },
    ],
    s.t(resume ? 'kybRepResume' : 'kybRepStart'),
    async ({ name }) => {
      const started = await page.api.startRepresentative(name!);
      slot.replaceChildren(checkLink(page, started));
      slot.querySelector('a')?.focus();
      page.ctx.announce(s.t('kybRepReady'));
    },
  );
  form.submit.classList.remove('btn-block');
  slot.append(form.finish());
  return slot;
}

function checkLink(page: VerificationPage, started: StartedCheck): HTMLElement {
  const { s } = page.ctx;
  return h(
    'div',
    { class: 'notice tone-ok kyb-go' },
    icon('id'),
    h(
      'div',
      null,
      p(null, s.t(started.simulated ? 'kybRepGoSimulated' : 'kybRepGo')),
      h('a', { class: ['btn', 'btn-primary'], attrs: { href: started.url } }, s.t('kybRepOpen')),
    ),
  );
}
