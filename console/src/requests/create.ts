/**
 * A new signature request from a template (POST /api/v1/signature_requests through the
 * credential): choose a template (GET /templates), fill the form generated from its fields
 * (type, required, label), name the signers, send. The inputs are named after the API's
 * parameters (`signers[0].email`, `signers[0].fields.tenant_name`), so a refusal's `param` lands
 * on its field.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import { checks, Form, type FieldSpec } from '../form.js';
import type { ListPage } from '../publicApi.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, pageScreen } from '../views/parts.js';
import { canWrite, type SignatureRequest, type Template, type TemplateField } from './model.js';
import { errorText } from './parts.js';

const MAX_SIGNERS = 5;

export function requestNewScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const slot = h('div', { class: 'create', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('reqNew'), intro: s.t(ctx.livemode ? 'reqNewIntroLive' : 'reqNewIntroTest') }, slot);
  if (!canWrite(ctx.session?.permissions)) {
    slot.replaceChildren(emptyState('shield', s.t('reqNoWrite')));
    slot.removeAttribute('aria-busy');
    return screen;
  }
  void ctx.publicApi
    .get<ListPage<Template>>(ctx.livemode, '/templates', { limit: 100 })
    .then((list) => {
      slot.removeAttribute('aria-busy');
      if (list.data.length === 0) return slot.replaceChildren(emptyState('doc', s.t('reqNoTemplates')));
      slot.replaceChildren(chooser(ctx, list.data));
    })
    .catch((err: unknown) => {
      slot.removeAttribute('aria-busy');
      slot.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    });
  return screen;
}

/** The template and the number of signers; each change builds the form again (the values typed so far kept). */
function chooser(ctx: ScreenContext, templates: Template[]): HTMLElement {
  const { s } = ctx;
  const template = h(
    'select',
    { class: 'input', attrs: { id: 'new-template', name: 'template' } },
    templates.map((t) => h('option', { attrs: { value: t.id } }, t.title)),
  );
  const count = h(
    'select',
    { class: 'input', attrs: { id: 'new-count', name: 'signer_count' } },
    Array.from({ length: MAX_SIGNERS }, (_, i) => h('option', { attrs: { value: String(i + 1) } }, String(i + 1))),
  );
  const formSlot = h('div', { class: 'form-slot' });
  let form: Form | null = null;
  let shown: Template | null = null;
  const build = () => {
    const chosen = templates.find((t) => t.id === template.value) ?? templates[0]!;
    const kept = form ? new FormData(form.root) : null;
    // Another template brings its own title; the signers and same-named fields carry over.
    if (shown && shown.id !== chosen.id) kept?.delete('title');
    shown = chosen;
    form = requestForm(ctx, chosen, Number(count.value));
    if (kept)
      for (const [k, v] of kept) if (typeof v === 'string' && form.root.querySelector(`[name="${CSS.escape(k)}"]`)) form.input(k).value = v;
    formSlot.replaceChildren(form.root);
  };
  template.addEventListener('change', build);
  count.addEventListener('change', build);
  build();
  const choice = (id: string, label: Key, input: HTMLElement) =>
    h('div', { class: 'field' }, h('label', { class: 'label', attrs: { for: id } }, s.t(label)), input);
  return h(
    'div',
    { class: 'create-grid' },
    h('div', { class: 'choices' }, choice('new-template', 'reqTemplate', template), choice('new-count', 'reqSignerCount', count)),
    formSlot,
  );
}

function fieldSpec(ctx: ScreenContext, f: TemplateField): FieldSpec {
  const { s } = ctx;
  const required = f.required ? checks.required(s.t('reqFieldRequired', { label: f.label })) : undefined;
  return {
    name: `signers[0].fields.${f.key}`,
    label: f.required ? f.label : s.t('optionalLabel', { label: f.label }),
    type: f.type === 'date' ? 'date' : f.type === 'email' ? 'email' : 'text',
    inputmode: f.type === 'number' ? 'numeric' : undefined,
    autocomplete: 'off',
    check: required,
  };
}

function signerSpecs(ctx: ScreenContext, i: number): FieldSpec[] {
  const { s } = ctx;
  const n = { n: i + 1 };
  return [
    {
      name: `signers[${i}].name`,
      label: s.t('reqSignerNameN', n),
      autocomplete: 'off',
      check: checks.required(s.t('reqSignerNameRequired')),
    },
    {
      name: `signers[${i}].email`,
      label: s.t('reqSignerEmailN', n),
      type: 'email',
      autocomplete: 'off',
      hint: s.t('reqContactHint'),
      check: (v, all) => (v === '' && !all[`signers[${i}].phone`] ? s.t('reqContactRequired') : v === '' ? null : checks.email(s)(v)),
    },
    { name: `signers[${i}].phone`, label: s.t('reqSignerPhoneN', n), type: 'tel', autocomplete: 'off', hint: s.t('reqPhoneHint') },
  ];
}

function requestForm(ctx: ScreenContext, template: Template, signerCount: number): Form {
  const { s } = ctx;
  const specs: FieldSpec[] = [
    { name: 'title', label: s.t('reqTitle'), autocomplete: 'off', value: template.title, check: checks.required(s.t('reqTitleRequired')) },
    ...template.fields.map((f) => fieldSpec(ctx, f)),
    ...Array.from({ length: signerCount }, (_, i) => signerSpecs(ctx, i)).flat(),
  ];
  const form = new Form(s, specs, s.t('reqSend'), async (values) => {
    const created = await ctx.publicApi.post<SignatureRequest>(
      ctx.livemode,
      '/signature_requests',
      requestBody(template, signerCount, values),
      {
        idempotent: true,
      },
    );
    ctx.flash(s.t('reqSent'));
    ctx.go(at(`/requests/${created.id}`));
  });
  form.finish();
  return form;
}

function requestBody(template: Template, signerCount: number, v: Record<string, string>): unknown {
  const fields: Record<string, string> = {};
  for (const f of template.fields) {
    const value = v[`signers[0].fields.${f.key}`];
    if (value) fields[f.key] = value;
  }
  const signers = Array.from({ length: signerCount }, (_, i) => {
    const email = v[`signers[${i}].email`];
    const phone = v[`signers[${i}].phone`];
    return { name: v[`signers[${i}].name`], ...(email ? { email } : {}), ...(phone ? { phone } : {}), ...(i === 0 ? { fields } : {}) };
  });
  return { title: v.title, source: { type: 'template', template_id: template.id }, signers };
}
