/* global document, window */
// Shared by the agent's windows (classic script: file:// pages cannot load ES modules). Texts of the agent's windows in Arabic and English. The language comes from the request
// (`lang`), else the system; Arabic pages are right-to-left.
(() => {
  const TEXTS = {
    en: {
      consentTitle: 'Signature request',
      server: 'Server',
      serverKey: 'Server key',
      document: 'Document',
      pages: (n) => `${n} page${n === 1 ? '' : 's'}`,
      request: 'Request',
      digest: 'Document digest (SHA-256)',
      certificate: 'Certificate',
      issuer: 'Issued by',
      validUntil: 'Valid until',
      token: 'Token',
      previewUnavailable: (reason) => `The preview could not be loaded (${reason}). Do not sign a document you have not seen.`,
      sign: 'Continue to PIN',
      cancel: 'Cancel',
      pinTitle: 'Enter your token PIN',
      pinFor: 'PIN',
      pinOk: 'Enter the PIN of your token. It stays on this computer.',
      pinLow: 'A wrong PIN was entered before: only a few tries are left.',
      pinFinal: 'Last try: one more wrong PIN locks your token.',
      pinLocked: 'This token’s PIN is locked. Unblock it with the tool of your token’s vendor.',
      pinPad: 'Enter the PIN on your reader’s PIN pad.',
      submit: 'Sign',
      trustTitle: 'Trusted servers',
      trustNone: 'No trusted servers yet.',
      remove: 'Remove',
      addServer: 'Add a server',
      origin: 'Server address',
      fetchKey: 'Get its key',
      compare: 'Compare this fingerprint with the one your server operator gave you:',
      trust: 'Trust this server',
      fingerprint: 'Fingerprint',
    },
    ar: {
      consentTitle: 'طلب توقيع',
      server: 'الخادم',
      serverKey: 'مفتاح الخادم',
      document: 'المستند',
      pages: (n) => `${n} صفحة`,
      request: 'الطلب',
      digest: 'بصمة المستند (SHA-256)',
      certificate: 'الشهادة',
      issuer: 'جهة الإصدار',
      validUntil: 'صالحة حتى',
      token: 'رمز الأمان',
      previewUnavailable: (reason) => `تعذّر تحميل المعاينة (${reason}). لا توقّع مستندًا لم تره.`,
      sign: 'متابعة إلى رمز PIN',
      cancel: 'إلغاء',
      pinTitle: 'أدخل رمز PIN الخاص برمز الأمان',
      pinFor: 'رمز PIN',
      pinOk: 'أدخل رمز PIN الخاص برمز الأمان. يبقى على هذا الجهاز.',
      pinLow: 'أُدخل رمز خاطئ من قبل: بقيت محاولات قليلة.',
      pinFinal: 'المحاولة الأخيرة: رمز خاطئ آخر يقفل رمز الأمان.',
      pinLocked: 'رمز PIN مقفل. افتحه بأداة مورّد رمز الأمان.',
      pinPad: 'أدخل رمز PIN على لوحة القارئ.',
      submit: 'توقيع',
      trustTitle: 'الخوادم الموثوقة',
      trustNone: 'لا توجد خوادم موثوقة بعد.',
      remove: 'إزالة',
      addServer: 'إضافة خادم',
      origin: 'عنوان الخادم',
      fetchKey: 'جلب المفتاح',
      compare: 'قارن هذه البصمة بالبصمة التي أعطاك إياها مشغّل الخادم:',
      trust: 'الوثوق بهذا الخادم',
      fingerprint: 'البصمة',
    },
  };

  function pickLanguage(lang) {
    const wanted = (lang || navigator.language || 'en').slice(0, 2).toLowerCase();
    const chosen = wanted === 'ar' ? 'ar' : 'en';
    document.documentElement.lang = chosen;
    document.documentElement.dir = chosen === 'ar' ? 'rtl' : 'ltr';
    return TEXTS[chosen];
  }

  /** 64 hex digits in groups of four. */
  const groups = (hex) => (hex.match(/.{1,4}/g) || []).join(' ');

  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === 'class') node.className = v;
      else if (k.startsWith('data-')) node.setAttribute(k, v);
      else node[k] = v;
    }
    for (const child of children) node.append(child);
    return node;
  }

  window.TawqiUi = { TEXTS, pickLanguage, groups, el };
})();
