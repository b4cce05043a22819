/**
 * The signature validator page's one script (bundled to dist/validate.js; the page is rendered by
 * server/src/http/verify/validatePage.ts): sends a chosen or dropped PDF to POST /verify on this
 * origin (CSP connect-src 'self') and shows the report the server renders, escaped, as HTML.
 * Errors arrive in the API's envelope, in the page's language.
 */
import { h, replace } from './dom.js';
import { onFileChosen } from './dropzone.js';
import { icon } from './views/parts.js';

const MAX_BYTES = 25 * 1024 * 1024;

function start(): void {
  const panel = document.getElementById('validate');
  const zone = panel?.querySelector<HTMLElement>('[data-dropzone]');
  const input = panel?.querySelector<HTMLInputElement>('input[type=file]');
  const result = document.querySelector<HTMLElement>('.validate-result');
  if (!panel || !zone || !input || !result) return;
  const lang = panel.dataset.lang === 'en' ? 'en' : 'ar';
  zone.hidden = false;

  const notice = (text: string, detail?: string) =>
    replace(
      result,
      h(
        'div',
        { class: ['notice', 'tone-info'] },
        icon('info'),
        h('div', null, h('strong', null, text), detail ? h('p', null, detail) : null),
      ),
    );

  const check = async (file: File) => {
    result.dataset.state = 'checking';
    notice(panel.dataset.tChecking ?? '');
    try {
      const response = await fetch(`/verify?lang=${lang}`, {
        method: 'POST',
        body: file.size > MAX_BYTES ? file.slice(0, MAX_BYTES + 1) : file,
        headers: { 'Content-Type': 'application/pdf', Accept: 'text/html', 'Accept-Language': lang },
      });
      if (!response.ok) {
        const envelope = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
        result.dataset.state = 'error';
        notice(panel.dataset.tFailed ?? '', envelope?.error?.message);
        return;
      }
      // The server escapes every value of the report; the fragment has no script (and the CSP runs none).
      const fragment = document.createRange().createContextualFragment(await response.text());
      result.dataset.state = 'done';
      replace(result, ...Array.from(fragment.childNodes));
      result.querySelector<HTMLElement>('h2')?.setAttribute('tabindex', '-1');
      result.querySelector<HTMLElement>('h2')?.focus();
    } catch {
      result.dataset.state = 'error';
      notice(panel.dataset.tFailed ?? '');
    }
  };

  onFileChosen(panel, zone, input, (file) => void check(file));
}

start();
