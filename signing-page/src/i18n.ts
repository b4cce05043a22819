/**
 * Every string of the page in Arabic and English. The language is the request's (`State.language`);
 * digits stay Western in both, like the codes the signer receives.
 */
import type { Child } from './dom.js';
import type { Language } from './types.js';

type Plural = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

export const en = {
  appName: 'Tawqi',
  pageTitle: 'Sign: {title}',
  poweredBy: 'Powered by Tawqi',
  testBanner: 'Test mode — this document has no legal effect',
  logoAlt: '{brand} logo',
  loading: 'Loading…',
  networkError: 'We could not reach the server. Check your connection and try again.',
  unexpectedError: 'Something went wrong. Please try again.',
  configMissing: 'This page is missing its configuration. Open the link you received again.',
  reload: 'Reload',
  dismiss: 'Dismiss',
  progress: 'Progress',
  stepVerify: 'Verify',
  stepSign: 'Review and sign',
  stepDone: 'Done',
  stepCurrent: '(current step)',
  stepComplete: '(completed)',
  signingAs: 'Signing as {name}',
  legal_ses: 'Simple electronic signature',
  legal_aes: 'Advanced electronic signature',
  legal_qes: 'Qualified electronic signature',

  accessTitle: 'Enter your access code',
  accessIntro: 'The sender protected this document with an access code. They should have shared it with you separately.',
  accessLabel: 'Access code',
  accessSubmit: 'Continue',
  accessEmpty: 'Enter the access code you were given.',
  accessLockedTitle: 'Access is locked',
  accessLockedBody: 'A wrong access code was entered too many times. Contact the sender to get access again.',

  otpTitle: 'Confirm it’s you',
  otpIntro: 'To protect this document, we will send a 6-digit code to {destination}.',
  otpIntroNoDest: 'To protect this document, we will send you a 6-digit code.',
  otpSend: 'Send code',
  otpSentTo: 'We sent a 6-digit code to {destination}.',
  otpSentNoDest: 'We sent you a 6-digit code.',
  otpLabel: 'Verification code',
  otpHint: 'Enter the 6 digits from the message.',
  otpVerify: 'Verify',
  otpResend: 'Send a new code',
  otpResendIn: 'Send a new code in {time}',
  otpNewSent: 'A new code is on its way.',
  otpFormat: 'Enter the 6 digits of the code.',
  otpExpired: 'This code has expired. Send a new code.',
  otpLockedNote: 'A wrong code was entered too many times. Send a new code to try again.',
  otpNotReceived: 'Didn’t get it? Check your spam folder or wait a moment before sending a new code.',

  idTitle: 'Verify your identity',
  idIntro:
    'This document requires identity verification. You will photograph an official ID document and take a live picture of your face so they can be matched.',
  idPrepare: 'Before you start',
  idPrepDoc: 'Have your ID card or passport with you',
  idPrepCamera: 'Allow camera access when asked',
  idPrepLight: 'Find a well-lit place',
  idTestNote: 'Test mode: a simulation page lets you choose Approve or Decline. No document or camera is needed.',
  idStart: 'Start verification',
  idWaitTitle: 'Checking your identity',
  idWaitBody: 'This page updates by itself as soon as the result is ready. You can keep it open.',
  idWaitChecking: 'Waiting for the result…',
  idContinue: 'Return to verification',
  idDeclinedTitle: 'We could not verify your identity',
  idDeclinedBody:
    'Identity verification was not approved, so this document cannot be signed for now. You can try again or contact the sender.',
  idRetry: 'Try again',
  idHoldTitle: 'Your identity is being reviewed',
  idHoldBody:
    'Your identity was verified, but the name on your ID differs from the name on this request. A reviewer will decide; this page updates by itself, or you can come back to this link later.',

  reviewIntro: 'Read the document, then add your signature below.',
  jumpToSign: 'Go to signature',
  documentLabel: 'Document text',
  documentEmpty: 'This document has no text.',
  sigHeading: 'Your signature',
  sigMode: 'How do you want to sign?',
  sigDraw: 'Draw',
  sigType: 'Type',
  padLabel: 'Signature pad. Draw your signature with a mouse, finger or stylus. To use the keyboard, choose Type.',
  padPlaceholder: 'Sign here',
  typePreview: 'Preview of your typed signature',
  typeLabel: 'Type your full name',
  typeHint: 'Your name is drawn as your signature.',
  sigClear: 'Clear',
  sigCleared: 'Signature cleared.',
  consent: 'I agree that my electronic signature on this document is the legal equivalent of my handwritten signature.',
  sign: 'Sign document',
  signing: 'Signing…',
  needBoth: 'Add your signature and tick the box to sign.',
  needSignature: 'Add your signature to sign.',
  needConsent: 'Tick the box to sign.',
  ready: 'Ready to sign.',
  decline: 'Decline to sign',
  declineTitle: 'Decline to sign?',
  declineBody: 'The sender will be told that you declined, and this request will stop for everyone.',
  declineReason: 'Reason (optional)',
  declineCount: '{n} of {max} characters',
  declineConfirm: 'Decline',
  declining: 'Declining…',
  cancel: 'Cancel',
  tokenTitle: 'Hardware token required',
  tokenBody:
    'This document is signed with the certificate on your hardware token (qualified electronic signature), through the Tawqi signing agent on this computer.',
  tokenPinNote: 'You confirm and type your PIN in the signing agent’s own window, never on this page.',
  tokenConnecting: 'Looking for the Tawqi signing agent on this computer…',
  tokenUnavailableTitle: 'The signing agent is not running',
  tokenUnavailableBody: 'Start the Tawqi signing agent on this computer, or install it first, then try again.',
  tokenDownload: 'Download the signing agent',
  tokenNoDownload: 'Ask the sender where to get the Tawqi signing agent.',
  tokenRetry: 'Try again',
  tokenNotTrustedTitle: 'The signing agent does not trust this site yet',
  tokenNotTrustedBody: 'Add {site} to the servers your signing agent trusts, then try again.',
  tokenOutdatedTitle: 'Update the signing agent',
  tokenOutdatedBody: 'This version of the signing agent cannot talk to this page. Install the latest version, then try again.',
  tokenNoTokenTitle: 'No token found',
  tokenNoTokenBody: 'Plug in your hardware token. This page notices it by itself.',
  tokenNoCertificateTitle: 'No signing certificate on your token',
  tokenNoCertificateBody:
    'The plugged-in token has no certificate that can sign now (valid, meant for signing). Plug in the token that holds your signing certificate.',
  tokenPinLockedTitle: 'Your token’s PIN is locked',
  tokenPinLockedBody:
    'Too many wrong PINs were entered. Unblock the PIN with your token’s tools (PUK) or contact its issuer, then try again.',
  tokenChoose: 'Choose your certificate',
  tokenIssuer: 'Issued by {issuer}',
  tokenValidUntil: 'Valid until {date}',
  tokenOnToken: 'On {token}',
  tokenPinLockedTag: 'PIN locked',
  tokenRefusedTag: 'Cannot be used here: {reason}',
  tokenNoneAcceptedTitle: 'None of your certificates can be used here',
  tokenNoneAcceptedBody: 'Each certificate below shows why. Plug in the token that holds your qualified signing certificate.',
  tokenFinalTryTag: 'One PIN attempt left',
  tokenSign: 'Sign with my token',
  tokenPreparing: 'Preparing the document…',
  tokenAwaitingConsent: 'Confirm the signature in the signing agent window.',
  tokenAwaitingPin: 'Type your PIN in the signing agent window.',
  tokenSigningNow: 'Signing on your token…',
  tokenCompleting: 'Adding your signature to the document…',
  tokenCancel: 'Cancel',
  tokenCanceled: 'The signature was canceled. Nothing was signed.',
  tokenPinIncorrect: 'The PIN was not correct. Nothing was signed; you can try again.',
  tokenPinIncorrectFinal: 'The PIN was not correct. One more wrong PIN locks your token.',
  tokenWrongCertificate: 'This certificate cannot be used here: {reason}',
  tokenTicketExpired: 'The signature took too long and was stopped. Try again.',
  tokenRemoved: 'The token or its certificate is no longer there. Plug it in and try again.',
  tokenBusy: 'The signing agent is busy with another signature. Finish or cancel it there, then try again.',
  tokenFailed: 'The signing agent could not sign ({code}). Try again.',

  signedTitle: 'You signed the document',
  signedBody: 'Thank you. Your signature on {title} has been recorded.',
  signedNext: 'When everyone has signed, you will receive the final document.',
  showDocument: 'Show the document you signed',
  declinedTitle: 'You declined to sign',
  declinedBody: 'The sender has been told that you declined {title}. Nothing else is needed from you.',
  closedCompletedTitle: 'This document is complete',
  closedCompletedBody: 'Everyone has signed {title}. There is nothing left to do here.',
  closedDeclinedTitle: 'This request was declined',
  closedDeclinedBody: 'A signer declined {title}, so it can no longer be signed.',
  closedExpiredTitle: 'This request has expired',
  closedExpiredBody: '{title} was not signed in time. Ask the sender to send it again.',
  closedCanceledTitle: 'This request was canceled',
  closedCanceledBody: 'The sender canceled {title}. There is nothing to sign.',
  closedOtherTitle: 'This request is closed',
  closedOtherBody: '{title} can no longer be signed.',
  notYourTurnTitle: 'It’s not your turn yet',
  notYourTurnBody: 'Another signer needs to sign {title} before you. Come back to this link after they have signed.',
  checkAgain: 'Check again',
  stillWaiting: 'Still waiting for the previous signer.',
  returnButton: 'Return',
  sessionEndedTitle: 'This page has expired',
  sessionEndedBody: 'Open the link you received again to continue.',
  unknownTitle: 'This page cannot continue',
  unknownBody: 'Reload the page to try again.',
};

export type Key = keyof typeof en;

const ar: Record<Key, string> = {
  appName: 'توقيع',
  pageTitle: 'توقيع: {title}',
  poweredBy: 'بتقنية توقيع',
  testBanner: 'وضع الاختبار — لا أثر قانوني لهذا المستند',
  logoAlt: 'شعار {brand}',
  loading: 'جارٍ التحميل…',
  networkError: 'تعذّر الاتصال بالخادم. تحقّق من اتصالك وحاول مرة أخرى.',
  unexpectedError: 'حدث خطأ غير متوقع. حاول مرة أخرى.',
  configMissing: 'تنقص هذه الصفحة إعداداتها. افتح الرابط الذي وصلك مرة أخرى.',
  reload: 'إعادة التحميل',
  dismiss: 'إغلاق',
  progress: 'مراحل التوقيع',
  stepVerify: 'التحقق',
  stepSign: 'المراجعة والتوقيع',
  stepDone: 'تم',
  stepCurrent: '(المرحلة الحالية)',
  stepComplete: '(مكتملة)',
  signingAs: 'التوقيع باسم {name}',
  legal_ses: 'توقيع إلكتروني بسيط',
  legal_aes: 'توقيع إلكتروني متقدم',
  legal_qes: 'توقيع إلكتروني مؤهل',

  accessTitle: 'أدخل رمز الدخول',
  accessIntro: 'حمى المرسل هذا المستند برمز دخول، ويُفترض أنه أرسله إليك بشكل منفصل.',
  accessLabel: 'رمز الدخول',
  accessSubmit: 'متابعة',
  accessEmpty: 'أدخل رمز الدخول الذي وصلك.',
  accessLockedTitle: 'أُقفل الدخول',
  accessLockedBody: 'أُدخل رمز دخول خاطئ مرات كثيرة. تواصل مع المرسل لاستعادة الوصول.',

  otpTitle: 'تأكيد هويتك',
  otpIntro: 'لحماية هذا المستند، سنرسل رمزًا من 6 أرقام إلى {destination}.',
  otpIntroNoDest: 'لحماية هذا المستند، سنرسل إليك رمزًا من 6 أرقام.',
  otpSend: 'إرسال الرمز',
  otpSentTo: 'أرسلنا رمزًا من 6 أرقام إلى {destination}.',
  otpSentNoDest: 'أرسلنا إليك رمزًا من 6 أرقام.',
  otpLabel: 'رمز التحقق',
  otpHint: 'أدخل الأرقام الستة الواردة في الرسالة.',
  otpVerify: 'تحقّق',
  otpResend: 'إرسال رمز جديد',
  otpResendIn: 'إرسال رمز جديد بعد {time}',
  otpNewSent: 'أُرسل إليك رمز جديد.',
  otpFormat: 'أدخل أرقام الرمز الستة.',
  otpExpired: 'انتهت صلاحية هذا الرمز. اطلب رمزًا جديدًا.',
  otpLockedNote: 'أُدخل رمز خاطئ مرات كثيرة. اطلب رمزًا جديدًا للمحاولة مجددًا.',
  otpNotReceived: 'لم يصلك الرمز؟ تحقّق من مجلد الرسائل غير المرغوب فيها، أو انتظر قليلًا قبل طلب رمز جديد.',

  idTitle: 'التحقق من الهوية',
  idIntro: 'يتطلب هذا المستند التحقق من هويتك: ستصوّر وثيقة هوية رسمية، ثم تلتقط صورة حية لوجهك لمطابقتها.',
  idPrepare: 'قبل أن تبدأ',
  idPrepDoc: 'جهّز بطاقة الهوية أو جواز السفر',
  idPrepCamera: 'اسمح باستخدام الكاميرا عند الطلب',
  idPrepLight: 'اختر مكانًا جيد الإضاءة',
  idTestNote: 'وضع الاختبار: ستختار «موافقة» أو «رفض» في صفحة محاكاة، دون حاجة إلى وثيقة أو كاميرا.',
  idStart: 'بدء التحقق',
  idWaitTitle: 'جارٍ التحقق من هويتك',
  idWaitBody: 'ستتحدّث هذه الصفحة تلقائيًا فور صدور النتيجة، ويمكنك إبقاؤها مفتوحة.',
  idWaitChecking: 'بانتظار النتيجة…',
  idContinue: 'العودة إلى صفحة التحقق',
  idDeclinedTitle: 'تعذّر التحقق من هويتك',
  idDeclinedBody: 'لم يُقبل التحقق من الهوية، لذا لا يمكن توقيع هذا المستند الآن. يمكنك المحاولة مرة أخرى أو التواصل مع المرسل.',
  idRetry: 'المحاولة مرة أخرى',
  idHoldTitle: 'هويتك قيد المراجعة',
  idHoldBody:
    'تم التحقق من هويتك، لكن الاسم في وثيقتك يختلف عن الاسم في هذا الطلب. سيبتّ أحد المراجعين في الأمر؛ ستتحدّث هذه الصفحة تلقائيًا، ويمكنك العودة إلى هذا الرابط لاحقًا.',

  reviewIntro: 'اقرأ المستند، ثم أضف توقيعك في الأسفل.',
  jumpToSign: 'الانتقال إلى التوقيع',
  documentLabel: 'نص المستند',
  documentEmpty: 'لا يحتوي هذا المستند على نص.',
  sigHeading: 'توقيعك',
  sigMode: 'كيف تريد أن توقّع؟',
  sigDraw: 'رسم',
  sigType: 'كتابة',
  padLabel: 'لوحة التوقيع. ارسم توقيعك بالفأرة أو الإصبع أو القلم. لاستخدام لوحة المفاتيح اختر «كتابة».',
  padPlaceholder: 'وقّع هنا',
  typePreview: 'معاينة توقيعك المكتوب',
  typeLabel: 'اكتب اسمك الكامل',
  typeHint: 'يُرسم اسمك ليكون توقيعك.',
  sigClear: 'مسح',
  sigCleared: 'مُسح التوقيع.',
  consent: 'أوافق على أن توقيعي الإلكتروني على هذا المستند يعادل قانونيًا توقيعي بخط اليد.',
  sign: 'توقيع المستند',
  signing: 'جارٍ التوقيع…',
  needBoth: 'أضف توقيعك وحدّد مربع الموافقة لتتمكن من التوقيع.',
  needSignature: 'أضف توقيعك لتتمكن من التوقيع.',
  needConsent: 'حدّد مربع الموافقة لتتمكن من التوقيع.',
  ready: 'جاهز للتوقيع.',
  decline: 'رفض التوقيع',
  declineTitle: 'رفض التوقيع؟',
  declineBody: 'سيُبلَّغ المرسل برفضك، وسيتوقف هذا الطلب لجميع الأطراف.',
  declineReason: 'السبب (اختياري)',
  declineCount: '{n} من {max} حرف',
  declineConfirm: 'تأكيد الرفض',
  declining: 'جارٍ الرفض…',
  cancel: 'إلغاء',
  tokenTitle: 'يلزم مفتاح توقيع',
  tokenBody: 'يوقَّع هذا المستند بالشهادة المخزنة في مفتاح التوقيع الخاص بك (توقيع إلكتروني مؤهل)، عبر برنامج التوقيع المحلي على هذا الجهاز.',
  tokenPinNote: 'تؤكد التوقيع وتكتب رمز PIN في نافذة برنامج التوقيع نفسه، ولا تكتبه أبدًا في هذه الصفحة.',
  tokenConnecting: 'جارٍ البحث عن برنامج التوقيع على هذا الجهاز…',
  tokenUnavailableTitle: 'برنامج التوقيع لا يعمل',
  tokenUnavailableBody: 'شغّل برنامج التوقيع على هذا الجهاز، أو ثبّته أولًا، ثم حاول مرة أخرى.',
  tokenDownload: 'تنزيل برنامج التوقيع',
  tokenNoDownload: 'اسأل المرسل عن مكان الحصول على برنامج التوقيع.',
  tokenRetry: 'حاول مرة أخرى',
  tokenNotTrustedTitle: 'برنامج التوقيع لا يثق بهذا الموقع بعد',
  tokenNotTrustedBody: 'أضف {site} إلى الخوادم الموثوقة في برنامج التوقيع، ثم حاول مرة أخرى.',
  tokenOutdatedTitle: 'حدّث برنامج التوقيع',
  tokenOutdatedBody: 'لا يستطيع هذا الإصدار من برنامج التوقيع التواصل مع هذه الصفحة. ثبّت أحدث إصدار ثم حاول مرة أخرى.',
  tokenNoTokenTitle: 'لم يُعثر على مفتاح توقيع',
  tokenNoTokenBody: 'صِل مفتاح التوقيع بالجهاز، وستلاحظه هذه الصفحة تلقائيًا.',
  tokenNoCertificateTitle: 'لا توجد شهادة توقيع على المفتاح',
  tokenNoCertificateBody: 'لا يحمل المفتاح الموصول شهادة صالحة للتوقيع الآن (سارية ومخصصة للتوقيع). صِل المفتاح الذي يحمل شهادة توقيعك.',
  tokenPinLockedTitle: 'رمز PIN لمفتاحك مقفل',
  tokenPinLockedBody: 'أُدخل رمز PIN خاطئ مرات كثيرة. افتح القفل بأدوات المفتاح (رمز PUK) أو تواصل مع الجهة المصدرة، ثم حاول مرة أخرى.',
  tokenChoose: 'اختر شهادتك',
  tokenIssuer: 'صادرة عن {issuer}',
  tokenValidUntil: 'سارية حتى {date}',
  tokenOnToken: 'على {token}',
  tokenPinLockedTag: 'رمز PIN مقفل',
  tokenRefusedTag: 'لا يمكن استخدامها هنا: {reason}',
  tokenNoneAcceptedTitle: 'لا يمكن استخدام أي من شهاداتك هنا',
  tokenNoneAcceptedBody: 'يظهر تحت كل شهادة سبب رفضها. صِل المفتاح الذي يحمل شهادة التوقيع المؤهلة الخاصة بك.',
  tokenFinalTryTag: 'بقيت محاولة واحدة لرمز PIN',
  tokenSign: 'التوقيع بالمفتاح',
  tokenPreparing: 'جارٍ تجهيز المستند…',
  tokenAwaitingConsent: 'أكّد التوقيع في نافذة برنامج التوقيع.',
  tokenAwaitingPin: 'اكتب رمز PIN في نافذة برنامج التوقيع.',
  tokenSigningNow: 'جارٍ التوقيع على مفتاحك…',
  tokenCompleting: 'جارٍ إضافة توقيعك إلى المستند…',
  tokenCancel: 'إلغاء',
  tokenCanceled: 'أُلغي التوقيع، ولم يُوقَّع شيء.',
  tokenPinIncorrect: 'رمز PIN غير صحيح. لم يُوقَّع شيء، ويمكنك المحاولة مرة أخرى.',
  tokenPinIncorrectFinal: 'رمز PIN غير صحيح. محاولة خاطئة أخرى تقفل مفتاحك.',
  tokenWrongCertificate: 'لا يمكن استخدام هذه الشهادة هنا: {reason}',
  tokenTicketExpired: 'استغرق التوقيع وقتًا طويلًا فأُوقف. حاول مرة أخرى.',
  tokenRemoved: 'لم يعد المفتاح أو شهادته موجودًا. صِله ثم حاول مرة أخرى.',
  tokenBusy: 'برنامج التوقيع مشغول بتوقيع آخر. أنهِه أو ألغِه هناك، ثم حاول مرة أخرى.',
  tokenFailed: 'تعذّر على برنامج التوقيع إتمام التوقيع ({code}). حاول مرة أخرى.',

  signedTitle: 'وقّعت المستند',
  signedBody: 'شكرًا لك. سُجّل توقيعك على {title}.',
  signedNext: 'عند اكتمال جميع التوقيعات، ستصلك النسخة النهائية من المستند.',
  showDocument: 'عرض المستند الذي وقّعته',
  declinedTitle: 'رفضت التوقيع',
  declinedBody: 'أُبلغ المرسل برفضك توقيع {title}، ولا يلزمك أي إجراء آخر.',
  closedCompletedTitle: 'اكتمل هذا المستند',
  closedCompletedBody: 'وقّع جميع الأطراف على {title}، ولا يلزم أي إجراء آخر.',
  closedDeclinedTitle: 'رُفض هذا الطلب',
  closedDeclinedBody: 'رفض أحد الموقّعين {title}، لذا لم يعد توقيعه ممكنًا.',
  closedExpiredTitle: 'انتهت صلاحية هذا الطلب',
  closedExpiredBody: 'لم يُوقَّع {title} قبل انتهاء مدته. اطلب من المرسل إرساله مجددًا.',
  closedCanceledTitle: 'أُلغي هذا الطلب',
  closedCanceledBody: 'ألغى المرسل {title}، فلا يوجد ما يلزم توقيعه.',
  closedOtherTitle: 'هذا الطلب مغلق',
  closedOtherBody: 'لم يعد توقيع {title} ممكنًا.',
  notYourTurnTitle: 'لم يحن دورك بعد',
  notYourTurnBody: 'يجب أن يوقّع شخص آخر على {title} قبلك. عد إلى هذا الرابط بعد توقيعه.',
  checkAgain: 'التحقق مجددًا',
  stillWaiting: 'ما زال التوقيع بانتظار الموقّع السابق.',
  returnButton: 'العودة',
  sessionEndedTitle: 'انتهت صلاحية هذه الصفحة',
  sessionEndedBody: 'افتح الرابط الذي وصلك مرة أخرى للمتابعة.',
  unknownTitle: 'تعذّرت متابعة هذه الصفحة',
  unknownBody: 'أعد تحميل الصفحة للمحاولة مرة أخرى.',
};

export const plurals = {
  en: {
    attemptsLeft: { one: '{n} attempt left', other: '{n} attempts left' },
    returningIn: { one: 'Returning you in {n} second…', other: 'Returning you in {n} seconds…' },
  },
  ar: {
    attemptsLeft: {
      zero: 'لم تتبقَّ أي محاولة',
      one: 'تبقّت محاولة واحدة',
      two: 'تبقّت محاولتان',
      few: 'تبقّت {n} محاولات',
      many: 'تبقّت {n} محاولة',
      other: 'تبقّت {n} محاولة',
    },
    returningIn: {
      zero: 'ستعود الآن…',
      one: 'ستعود خلال ثانية واحدة…',
      two: 'ستعود خلال ثانيتين…',
      few: 'ستعود خلال {n} ثوانٍ…',
      many: 'ستعود خلال {n} ثانية…',
      other: 'ستعود خلال {n} ثانية…',
    },
  },
} satisfies Record<Language, Record<string, Plural>>;

export type PluralKey = keyof (typeof plurals)['en'];

export interface Strings {
  readonly lang: Language;
  readonly dir: 'rtl' | 'ltr';
  /** A plain string; `{name}` placeholders filled with text. */
  t(key: Key, vars?: Record<string, string | number>): string;
  /** A sentence as nodes, so a placeholder can be an element (an isolated name, a bold title). */
  nodes(key: Key, vars: Record<string, Child>): Child[];
  /** A counted phrase with the language's plural rules. */
  plural(key: PluralKey, n: number): string;
}

const PLACEHOLDER = /\{(\w+)\}/g;

export function strings(lang: Language): Strings {
  const table: Record<Key, string> = lang === 'ar' ? ar : en;
  const rules = new Intl.PluralRules(lang);
  const fill = (template: string, vars: Record<string, string | number> = {}): string =>
    template.replace(PLACEHOLDER, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
  return {
    lang,
    dir: lang === 'ar' ? 'rtl' : 'ltr',
    t: (key, vars) => fill(table[key], vars),
    nodes(key, vars) {
      const out: Child[] = [];
      let last = 0;
      for (const match of table[key].matchAll(PLACEHOLDER)) {
        const index = match.index ?? 0;
        out.push(table[key].slice(last, index));
        const name = match[1] ?? '';
        out.push(name in vars ? vars[name] : match[0]);
        last = index + match[0].length;
      }
      out.push(table[key].slice(last));
      return out;
    },
    plural(key, n) {
      const forms: Plural = plurals[lang][key];
      // Arabic uses its "zero" form for 0; Intl gives "zero" for ar already, "other" for en.
      const form = forms[rules.select(n)] ?? forms.other;
      return fill(form, { n });
    },
  };
}

/** `m:ss` for a countdown. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Digits typed on an Arabic or Persian keyboard (٠–٩, ۰–۹) as ASCII digits. */
export function westernDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (d) => String((d.charCodeAt(0) & 0xf) % 10));
}
