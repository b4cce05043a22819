/* global document, window */
// Trusting a server is an explicit step: the agent fetches the server's key, shows the origin and
// the key's fingerprint, and only a click on "Trust" stores it. Each server can be removed.
(() => {
  const { pickLanguage, groups, el } = window.TawqiUi;
  const bridge = window.tawqiAgent;
  const $ = (id) => document.getElementById(id);
  let t = pickLanguage();
  let pending = null;

  const showError = (message) => {
    $('error').hidden = !message;
    $('error').textContent = message || '';
  };

  async function refresh() {
    const servers = await bridge.listTrusted();
    const list = $('servers');
    list.replaceChildren();
    $('none').hidden = servers.length > 0;
    for (const s of servers) {
      const remove = el('button', { type: 'button', textContent: t.remove });
      remove.dataset.origin = s.origin;
      remove.addEventListener('click', async () => {
        await bridge.remove(s.origin);
        await refresh();
      });
      list.append(
        el(
          'li',
          { 'data-origin': s.origin },
          el('div', {}, el('div', {}, s.origin), el('div', { class: 'mono' }, groups(s.fingerprint))),
          remove,
        ),
      );
    }
  }

  function init(lang) {
    t = pickLanguage(lang);
    document.title = t.trustTitle;
    $('heading').textContent = t.trustTitle;
    $('none').textContent = t.trustNone;
    $('add-heading').textContent = t.addServer;
    $('origin-label').textContent = t.origin;
    $('fetch').textContent = t.fetchKey;
    $('compare').textContent = t.compare;
    $('confirm-origin-label').textContent = t.server;
    $('confirm-fingerprint-label').textContent = t.fingerprint;
    $('confirm-cancel').textContent = t.cancel;
    $('confirm-trust').textContent = t.trust;
  }

  $('add-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    showError('');
    const result = await bridge.fetchKey($('origin').value);
    if (result.error) return showError(result.error);
    pending = result;
    $('confirm-origin').textContent = result.origin;
    $('confirm-fingerprint').textContent = groups(result.fingerprint);
    $('confirm').hidden = false;
  });
  $('confirm-cancel').addEventListener('click', () => {
    pending = null;
    $('confirm').hidden = true;
  });
  $('confirm-trust').addEventListener('click', async () => {
    if (!pending) return;
    const result = await bridge.trust(pending.origin, pending.fingerprint);
    pending = null;
    $('confirm').hidden = true;
    if (result && result.error) showError(result.error);
    $('origin').value = '';
    await refresh();
  });

  Promise.resolve(bridge.getRequest ? bridge.getRequest() : {}).then((r) => {
    init(r && r.lang);
    return refresh();
  });
})();
