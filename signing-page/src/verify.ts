/**
 * The public verification page's one script (bundled to dist/verify.js; the page itself is
 * rendered by the server, server/src/http/verify/html.ts): checks a chosen or dropped PDF against
 * the sealed file's SHA-256 in the browser. The file is read with `File.arrayBuffer` and hashed with `crypto.subtle`; nothing is sent anywhere (the page's CSP has connect-src 'none').
 */
import { bdi, h, replace } from './dom.js';
import { onFileChosen } from './dropzone.js';
import { icon } from './views/parts.js';

/** The texts the server put on the panel (data-t-*), in the page's language. */
type TextKey = 'checking' | 'match' | 'earlier' | 'mismatch' | 'notpdf' | 'readerror' | 'filelabel' | 'filehash';

const hex = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A PDF starts with %PDF- within its first KiB (readers allow leading junk). */
function looksLikePdf(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return head.includes('%PDF-');
}

function start(): void {
  const panel = document.getElementById('check');
  const expected = panel?.dataset.sha256?.toLowerCase();
  // The hashes the sealed file had before its archive renewals (PAdES B-LTA): an earlier download.
  const earlier = new Set((panel?.dataset.earlierSha256 ?? '').toLowerCase().split(' ').filter(Boolean));
  const zone = panel?.querySelector<HTMLElement>('[data-dropzone]');
  const input = panel?.querySelector<HTMLInputElement>('input[type=file]');
  const result = panel?.querySelector<HTMLElement>('.check-result');
  if (!panel || !expected || !zone || !input || !result) return;
  const t = (key: TextKey) => panel.getAttribute(`data-t-${key}`) ?? '';
  zone.hidden = false;

  const show = (tone: 'ok' | 'bad' | 'info', text: string, file?: { name: string; sha256?: string }, outcome?: 'earlier') => {
    result.dataset.result = outcome ?? (tone === 'ok' ? 'match' : tone === 'bad' ? 'mismatch' : 'pending');
    replace(
      result,
      h(
        'div',
        { class: ['notice', `tone-${tone}`] },
        icon(tone === 'ok' ? 'check' : tone === 'bad' ? 'x' : 'info'),
        h(
          'div',
          null,
          h('strong', null, text),
          file ? h('p', null, `${t('filelabel')}: `, bdi(file.name)) : null,
          file?.sha256 ? h('p', null, `${t('filehash')}: `, h('code', { class: 'hash', attrs: { dir: 'ltr' } }, file.sha256)) : null,
        ),
      ),
    );
  };

  const check = async (file: File) => {
    show('info', t('checking'));
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      if (!looksLikePdf(bytes)) {
        show('bad', t('notpdf'), { name: file.name });
        return;
      }
      const sha256 = hex(await crypto.subtle.digest('SHA-256', bytes));
      if (sha256 === expected) show('ok', t('match'), { name: file.name, sha256 });
      else if (earlier.has(sha256)) show('ok', t('earlier'), { name: file.name, sha256 }, 'earlier');
      else show('bad', t('mismatch'), { name: file.name, sha256 });
    } catch {
      show('bad', t('readerror'), { name: file.name });
    }
  };

  onFileChosen(panel, zone, input, (file) => void check(file));
}

start();
