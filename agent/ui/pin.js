/* global document, window */
// The PIN window. The token's PIN state (from CKF_USER_PIN_COUNT_LOW / FINAL_TRY / LOCKED) is shown
// before the user types. The PIN goes to the agent process only (never to the web page), and the
// field is cleared as soon as it is sent. With a PIN-pad reader there is no field at all.
(() => {
  const { pickLanguage, el } = window.TawqiUi;
  const bridge = window.tawqiAgent;
  const $ = (id) => document.getElementById(id);

  bridge.getRequest().then((r) => {
    const t = pickLanguage(r.lang);
    document.title = t.pinTitle;
    $('heading').textContent = t.pinTitle;
    $('pin-label').textContent = t.pinFor;
    $('cancel').textContent = t.cancel;
    $('submit').textContent = t.submit;
    for (const [label, value, key] of [
      [t.document, r.title, 'title'],
      [t.server, r.origin, 'origin'],
      [t.certificate, r.certificate.name, 'certificate'],
      [t.token, r.token.label, 'token'],
    ]) {
      $('details').append(el('dt', {}, label), el('dd', { 'data-field': key }, value));
    }

    const pin = r.pin;
    const state = $('pin-state');
    let text = t.pinOk;
    let level = 'info';
    if (pin.locked) [text, level] = [t.pinLocked, 'danger'];
    else if (pin.final_try) [text, level] = [t.pinFinal, 'danger'];
    else if (pin.count_low) [text, level] = [t.pinLow, 'warn'];
    else if (pin.pin_pad) text = t.pinPad;
    state.textContent = text;
    state.className = `notice ${level}`;
    state.dataset.retries = pin.retries;

    const input = $('pin');
    if (pin.pin_pad || pin.locked) {
      input.hidden = true;
      $('pin-label').hidden = true;
      $('submit').hidden = true;
    } else {
      input.focus();
    }

    let done = false;
    const finish = (value) => {
      if (done) return;
      done = true;
      input.value = '';
      bridge.answer(value);
    };
    $('form').addEventListener('submit', (e) => {
      e.preventDefault();
      if (input.value.length === 0) return;
      finish({ pin: input.value });
    });
    $('cancel').addEventListener('click', () => finish(null));
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') finish(null);
    });
  });
})();
