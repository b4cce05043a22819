/** The signer's page: entry point (bundled to dist/app.js; contract in signing-page/API.md). */
import { Api, readConfig } from './api.js';
import { App } from './app.js';
import { Chrome } from './chrome.js';
import { strings } from './i18n.js';
import { bootPreview, isPreview } from './preview.js';
import { messageView } from './views/final.js';

function boot(): void {
  const main = document.getElementById('app');
  // The server's own message page (an invalid link) has no token and needs no script.
  if (!main || main.classList.contains('message')) return;
  if (isPreview(document)) return bootPreview(main);
  const config = readConfig(document);
  if (!config) {
    const s = strings(document.documentElement.lang.toLowerCase().startsWith('en') ? 'en' : 'ar');
    const chrome = new Chrome(main, s);
    chrome.bare();
    chrome.content.replaceChildren(messageView({ s }, 'unknownTitle', s.t('configMissing'), false).root);
    return;
  }
  void new App(new Api(config), main).start();
}

boot();
