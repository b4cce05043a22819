/**
 * The API reference page (/docs), rendered on the server from the OpenAPI document: every operation
 * with its parameters, body fields, answers and a curl and @tawqi/node example; the webhook
 * verification recipe; the error table of @tawqi/shared in both languages; the changelog of the
 * dated versions. Every value is escaped; the page has no script and links only to itself.
 */
import { ERRORS } from '@tawqi/shared';
import { escapeHtml as esc } from '../../sealing/html.js';
import { API_VERSIONS } from '../../domain/versions.js';
import { operationExamples, type OperationExample } from './examples.js';
import { DOCS_TEXT, WEBHOOK_EXAMPLE, type DocsText } from './text.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const pre = (kind: string, text: string, label: string): string =>
  `<pre tabindex="0" dir="ltr" data-example="${kind}" aria-label="${esc(label)}"><code>${esc(text)}</code></pre>`;

/** A short type for a schema: string, integer, X[], an object's component name, a | b. */
function typeOf(s: Json): string {
  if (!s || typeof s !== 'object') return '';
  if (typeof s.$ref === 'string') return s.$ref.split('/').pop()!;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return branches.map(typeOf).join(' | ');
  if (s.type === 'array') return `${typeOf(s.items)}[]`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return String(s.type ?? 'object');
}

function parameterTable(op: Json, t: DocsText): string {
  const params = (op.parameters ?? []).filter((p: Json) => p.in === 'path' || (p.in === 'query' && p.name !== 'lang'));
  if (params.length === 0) return '';
  const rows = params
    .map(
      (p: Json) =>
        `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td><code>${esc(typeOf(p.schema))}</code></td><td>${p.required ? t.yes : t.no}</td></tr>`,
    )
    .join('');
  return `<h4>${t.parameters}</h4><table><thead><tr><th scope="col">${t.name}</th><th scope="col">${t.where}</th><th scope="col">${t.type}</th><th scope="col">${t.required}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function bodyTable(op: Json, t: DocsText): string {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (!schema?.properties) return '';
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries<Json>(schema.properties)
    .map(
      ([name, s]) =>
        `<tr><td><code>${esc(name)}</code></td><td><code>${esc(typeOf(s))}</code></td><td>${required.has(name) ? t.yes : t.no}</td><td>${esc(s.description ?? '')}</td></tr>`,
    )
    .join('');
  return `<h4>${t.body}</h4><table><thead><tr><th scope="col">${t.name}</th><th scope="col">${t.type}</th><th scope="col">${t.required}</th><th scope="col"><span class="muted">—</span></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function answersList(op: Json, t: DocsText): string {
  const items = Object.entries<Json>(op.responses).map(([status, r]) => {
    const [type, media] = Object.entries<Json>(r.content ?? {})[0] ?? ['', {}];
    const what = status.startsWith('2')
      ? `${t.success}: <code>${esc(typeOf(media.schema) || type)}</code>`
      : esc(r.description ?? t.errors);
    return `<li><strong>${esc(status)}</strong> ${what}</li>`;
  });
  return `<h4>${t.answers}</h4><ul>${items.join('')}</ul>`;
}

function operationSection(op: Json, e: OperationExample, t: DocsText): string {
  const publicOp = Array.isArray(op.security) && op.security.length === 0;
  return `<section class="operation" id="op-${esc(e.operationId)}" data-operation="${esc(e.operationId)}" aria-labelledby="h-${esc(e.operationId)}">
<h3 id="h-${esc(e.operationId)}" dir="ltr"><span class="verb">${esc(e.method.toUpperCase())}</span> <code>${esc(e.path)}</code></h3>
<p>${esc(op.summary ?? '')}${publicOp ? ` <em>(${t.noKey})</em>` : ''} <span class="muted"><code>${esc(e.operationId)}</code></span></p>
${parameterTable(op, t)}${bodyTable(op, t)}${answersList(op, t)}
<div class="examples">
<div><h4>${t.curl}</h4>${pre('curl', e.curl, `${t.curl}: ${e.operationId}`)}</div>
<div><h4>${t.node}</h4>${pre('node', e.node, `${t.node}: ${e.operationId}`)}</div>
</div>
<h4>${t.response}</h4>${e.response === null ? `<p>${t.binary}</p>` : pre('response', JSON.stringify(e.response, null, 2), `${t.response}: ${e.operationId}`)}
</section>`;
}

function errorTable(t: DocsText): string {
  const rows = Object.entries(ERRORS)
    .map(
      ([code, d]) =>
        `<tr><td><code>${esc(code)}</code></td><td>${d.status}</td><td><code>${esc(d.type)}</code></td><td lang="ar" dir="rtl">${esc(d.ar)}</td><td lang="en" dir="ltr">${esc(d.en)}</td></tr>`,
    )
    .join('');
  return `<section id="errors" aria-labelledby="h-errors"><h2 id="h-errors">${t.errorTable}</h2><p>${esc(t.errorIntro)}</p>
<table data-table="errors"><thead><tr><th scope="col">${t.code}</th><th scope="col">${t.status}</th><th scope="col">${t.type}</th><th scope="col">${t.arabic}</th><th scope="col">${t.english}</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function changelog(t: DocsText, lang: 'ar' | 'en'): string {
  const items = API_VERSIONS.map((v, i) => {
    const tags = [i === 0 ? t.current : '', v.sunset ? `${t.sunset} ${v.sunset}` : ''].filter(Boolean).join(', ');
    const notes = v.changes[lang].map((c) => `<li>${esc(c)}</li>`).join('');
    return `<li data-version="${esc(v.date)}"><h3><time datetime="${esc(v.date)}">${esc(v.date)}</time>${tags ? ` <span class="muted">(${esc(tags)})</span>` : ''}</h3><ul>${notes}</ul></li>`;
  });
  return `<section id="changelog" aria-labelledby="h-changelog"><h2 id="h-changelog">${t.changelog}</h2><ul>${items.join('')}</ul></section>`;
}

function webhookRecipe(t: DocsText): string {
  return `<section id="webhooks" aria-labelledby="h-webhooks"><h2 id="h-webhooks">${t.webhooks}</h2>
<ol>${t.webhookSteps.map((s) => `<li>${esc(s)}</li>`).join('')}</ol><p>${esc(t.webhookNode)}</p>${pre('webhook', WEBHOOK_EXAMPLE, t.webhooks)}</section>`;
}

function navigation(doc: Json, t: DocsText): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item)) {
      const link = `<li><a href="#op-${esc(op.operationId)}" dir="ltr">${esc(method.toUpperCase())} ${esc(path)}</a></li>`;
      byTag.set(op.tags?.[0] ?? '', [...(byTag.get(op.tags?.[0] ?? '') ?? []), link]);
    }
  const groups = [...byTag].map(([tag, links]) => `<h2 dir="ltr">${esc(tag)}</h2><ul>${links.join('')}</ul>`).join('');
  return `<nav aria-label="${t.contents}">${groups}<ul><li><a href="#webhooks">${t.webhooks}</a></li><li><a href="#errors">${t.errorTable}</a></li><li><a href="#changelog">${t.changelog}</a></li></ul></nav>`;
}

/** The whole page in one language; `base` is the API's public base URL (…/api/v1). */
export function renderDocsPage(doc: Json, lang: 'ar' | 'en', base: string): string {
  const t = DOCS_TEXT[lang];
  const examples = new Map(operationExamples(doc, base).map((e) => [e.operationId, e]));
  const sections: string[] = [];
  for (const item of Object.values<Json>(doc.paths))
    for (const op of Object.values<Json>(item)) sections.push(operationSection(op, examples.get(op.operationId)!, t));
  const other = lang === 'ar' ? 'en' : 'ar';
  return `<!doctype html>
<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${t.title}</title>
<link rel="stylesheet" href="/docs/assets/docs.css"></head>
<body><a class="skip" href="#main">${t.skip}</a>
<header><h1>${t.title}</h1><a href="/docs?lang=${other}" lang="${other}" hreflang="${other}">${t.other}</a></header>
<div class="layout">${navigation(doc, t)}
<main id="main"><p>${esc(t.intro)} <a href="/api/v1/openapi.json" dir="ltr">/api/v1/openapi.json</a></p>
<p>${t.base}: <code dir="ltr">${esc(base)}</code> · Svc-Version: <code>${esc(doc.info.version)}</code></p>
<h2>${t.operations}</h2>
${sections.join('\n')}
${webhookRecipe(t)}
${errorTable(t)}
${changelog(t, lang)}
</main></div></body></html>`;
}
