/**
 * The Branding screen (issue 16 point 2; permission branding.manage, Business plan and above): the
 * form with every field of spec 2.9 beside a live preview of the real signing page in Arabic and
 * English, and the custom domain's DNS record and state. Below the Business plan the server answers
 * 403 plan_feature_unavailable with the plan needed and where to upgrade: the page explains that
 * instead of showing the form.
 */
import { h } from '@tawqi/signing-page/dom';
import { ApiError } from '../api.js';
import { errorText } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { messageSlot } from '../views/notice.js';
import { emptyState, pageScreen } from '../views/parts.js';
import { domainSection } from './domain.js';
import { brandingForm } from './form.js';
import type { BrandingView } from './model.js';
import { brandingPreview } from './preview.js';

/** Why branding is not available on this plan, and the way to the plan that has it. */
function upgrade(ctx: ScreenContext, err: ApiError): HTMLElement {
  const { s } = ctx;
  const plan = typeof err.body.required_plan === 'string' ? err.body.required_plan : 'business';
  const url = typeof err.body.upgrade_url === 'string' ? err.body.upgrade_url : null;
  return h(
    'div',
    { class: 'bp-upgrade' },
    h('div', { class: 'notice tone-info' }, h('p', null, err.serverMessage ?? s.t('bpUpgradeWhy', { plan }))),
    h('p', null, s.t('bpUpgradeWhat')),
    h('p', null, s.t('bpUpgradeHow', { plan })),
    url ? h('a', { class: 'btn btn-primary', attrs: { href: url } }, s.t('bpUpgradeLink', { plan })) : null,
  );
}

function editor(ctx: ScreenContext, view: BrandingView, destroyers: (() => void)[]): HTMLElement {
  const { slot, say } = messageSlot();
  const domain = domainSection(ctx);
  const form = brandingForm(ctx, view, { say, clear: () => slot.replaceChildren() }, (saved) => domain.show(saved.custom_domain_record));
  const preview = brandingPreview(ctx.s, form.draft);
  destroyers.push(preview.destroy);
  // Typing, a picked colour, the checkbox: each is a new draft for the preview.
  form.root.addEventListener('input', preview.changed);
  form.root.addEventListener('change', preview.changed);
  domain.show(view.custom_domain_record);
  return h('div', { class: 'bp' }, slot, h('div', { class: 'bp-layout' }, form.root, preview.root), domain.root);
}

export function brandingScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const content = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('navBranding'), intro: s.t('bpIntro') }, content);
  const destroyers: (() => void)[] = [];
  ctx.api
    .call<BrandingView>('GET', '/branding')
    .then((view) => content.replaceChildren(editor(ctx, view, destroyers)))
    .catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'plan_feature_unavailable') content.replaceChildren(upgrade(ctx, err));
      else content.replaceChildren(emptyState('alert', errorText(s, err)));
    })
    .finally(() => content.removeAttribute('aria-busy'));
  return { ...screen, destroy: () => destroyers.forEach((d) => d()) };
}
