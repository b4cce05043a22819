/* global document, window */
// The consent window: everything the user must see before being asked for the PIN — document
// title and first page, requesting server and its key, certificate, token and PIN state, digest.
// Nothing is signed unless the user presses the sign button.
(() => {
  const { pickLanguage, groups, el } = window.TawqiUi;
  const bridge = window.tawqiAgent;
  const $ = (id) => document.getElementById(id);

  const pinNotice = (t, pin) => {
    if (pin.locked) return ['danger', t.pinLocked];
    if (pin.final_try) return ['danger', t.pinFinal];
    if (pin.count_low) return ['warn', t.pinLow];
    if (pin.pin_pad) return ['info', t.pinPad];
    return null;
  };

  bridge.getRequest().then((r) => {
    const t = pickLanguage(r.lang);
    document.title = t.consentTitle;
    $('heading').textContent = t.consentTitle;
    $('cancel').textContent = t.cancel;
    $('sign').textContent = t.sign;

    const c = r.certificate;
    const rows = [
      [t.document, `${r.title} — ${t.pages(r.pages)}`, 'title'],
      [t.server, r.origin, 'origin'],
      [t.serverKey, groups(r.serverKeyFingerprint), 'fingerprint'],
      [t.certificate, c.name, 'certificate'],
      [t.issuer, c.issuer, 'issuer'],
      [t.validUntil, new Date(c.not_after * 1000).toISOString().slice(0, 10), 'valid-until'],
      [t.token, `${c.token.label} (${c.token.manufacturer} ${c.token.model})`, 'token'],
      [t.request, `${r.requestId} / ${r.signerId}`, 'request'],
      [t.digest, r.digest, 'digest'],
    ];
    for (const [label, value, key] of rows) {
      $('details').append(
        el('dt', {}, label),
        el('dd', { 'data-field': key, class: key === 'digest' || key === 'fingerprint' ? 'mono' : '' }, value),
      );
    }

    const preview = $('preview');
    if (r.preview.ok && r.preview.contentType === 'image/png') {
      preview.append(el('img', { id: 'preview-image', alt: r.title, src: `data:image/png;base64,${r.preview.base64}` }));
    } else if (r.preview.ok) {
      preview.append(el('embed', { id: 'preview-pdf', type: 'application/pdf', src: `data:application/pdf;base64,${r.preview.base64}` }));
    } else {
      preview.hidden = true;
      $('preview-warning').hidden = false;
      $('preview-warning').textContent = t.previewUnavailable(r.preview.reason);
    }

    const notice = pinNotice(t, c.token.pin);
    if (notice) {
      $('pin-state').hidden = false;
      $('pin-state').className = `notice ${notice[0]}`;
      $('pin-state').textContent = notice[1];
    }
    $('sign').disabled = Boolean(c.token.pin.locked);
    $('sign').addEventListener('click', () => bridge.answer(true), { once: true });
    $('cancel').addEventListener('click', () => bridge.answer(false), { once: true });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') bridge.answer(false);
    });
    $('cancel').focus();
  });
})();
