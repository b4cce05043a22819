/**
 * The one table of error codes: each code's HTTP status, its error.type and its message in
 * Arabic (the default) and English. Client logic relies on `code`, which never changes with language.
 * Codes marked "ours" fill places where the specification says "not shown".
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'billing_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ErrorDefinition {
  status: number;
  type: ErrorType;
  ar: string;
  en: string;
}

const def = (status: number, type: ErrorType, ar: string, en: string): ErrorDefinition => ({ status, type, ar, en });

export const ERRORS = {
  // 400 — request shape
  invalid_json: def(400, 'invalid_request_error', 'نص الطلب ليس JSON صالحًا.', 'The request body is not valid JSON.'),
  parameter_invalid: def(400, 'invalid_request_error', 'قيمة غير صالحة في الحقل المذكور.', 'The named parameter has an invalid value.'),
  parameter_missing: def(400, 'invalid_request_error', 'حقل مطلوب مفقود.', 'A required parameter is missing.'),
  parameter_unknown: def(400, 'invalid_request_error', 'حقل غير معروف في الطلب.', 'The request contains an unknown parameter.'),
  invalid_version: def(
    400,
    'invalid_request_error',
    'إصدار الواجهة المطلوب في ترويسة Svc-Version غير معروف.',
    'The API version in the Svc-Version header is not known.',
  ),
  idempotency_key_invalid: def(
    400,
    'invalid_request_error',
    'مفتاح عدم التكرار يجب ألا يزيد على 200 حرف.',
    'The Idempotency-Key must be 1 to 200 characters.',
  ),
  too_many_signers: def(400, 'invalid_request_error', 'الحد الأقصى خمسة موقّعين في الطلب.', 'A request may have at most 5 signers.'),
  test_signer_limit: def(400, 'invalid_request_error', 'طلب الاختبار لا يتجاوز خمسة موقّعين.', 'A test request may have at most 5 signers.'),
  test_bulk_limit: def(
    400,
    'invalid_request_error',
    'دفعة الإرسال الجماعي في وضع الاختبار لا تتجاوز عشرة مستلمين.',
    'A test bulk batch may have at most 10 recipients.',
  ),
  test_email_required: def(
    400,
    'invalid_request_error',
    'كل موقّع في وضع الاختبار يحتاج بريدًا إلكترونيًا.',
    'Every signer of a test request needs an email address.',
  ),
  test_recipient_not_allowed: def(
    400,
    'invalid_request_error',
    'في وضع الاختبار يجب أن يكون بريد الموقّع أو رقمه للحساب أو لأحد أعضاء الفريق.',
    'In test mode a signer’s email or number must belong to the account or a team member.',
  ),
  domain_not_accepted: def(
    400,
    'invalid_request_error',
    'نطاق رابط العودة غير مقبول في هذا الحساب.',
    'The return URL’s domain is not accepted on this account.',
  ),
  request_not_completed: def(400, 'invalid_request_error', 'الطلب لم يكتمل توقيعه بعد.', 'The signature request is not completed yet.'),
  reminder_not_allowed: def(
    400,
    'invalid_request_error',
    'لا يمكن إرسال تذكير لطلب مسودة أو ملغى أو منتهٍ.',
    'Reminders cannot be sent for a draft, canceled or finished request.',
  ),
  invalid_override: def(
    400,
    'invalid_request_error',
    'هذا الحقل لا يمكن تغييره في الجلسة أو قيمته غير صالحة.',
    'This field cannot be overridden for a session, or its value is invalid.',
  ),
  invalid_signer: def(400, 'invalid_request_error', 'بيانات موقّع مفقودة أو غير صالحة.', 'Signer data is missing or invalid.'),
  invalid_request: def(400, 'invalid_request_error', 'الطلب غير صالح.', 'The request is invalid.'),
  access_code_invalid: def(400, 'invalid_request_error', 'رمز الدخول غير صحيح.', 'The access code is not correct.'),
  otp_invalid: def(400, 'invalid_request_error', 'رمز التحقق غير صحيح.', 'The verification code is not correct.'),
  otp_expired: def(
    400,
    'invalid_request_error',
    'انتهت صلاحية رمز التحقق؛ اطلب رمزًا جديدًا.',
    'The verification code has expired; request a new one.',
  ),
  channel_unavailable: def(400, 'invalid_request_error', 'قناة واتساب غير مفعّلة لهذا الحساب.', 'The WhatsApp channel is not enabled.'),
  // ours: qualified signatures with a token (signing-page/API.md, token calls); `reason` says which check failed
  certificate_invalid: def(
    400,
    'invalid_request_error',
    'لا تصلح هذه الشهادة للتوقيع المؤهل: يجب أن تكون سارية، للتوقيع، وصادرة عن جهة موثوقة.',
    'This certificate cannot make a qualified signature: it must be valid now, meant for signing, and chain to a trusted root.',
  ),
  cms_invalid: def(
    400,
    'invalid_request_error',
    'التوقيع المرسل من برنامج التوقيع لا يطابق المستند أو الشهادة.',
    'The signature from the signing agent does not match the document or the certificate.',
  ),
  // 401
  api_key_missing: def(
    401,
    'authentication_error',
    'لم يُرسل مفتاح الواجهة. أرسل Authorization: Bearer ومفتاحك.',
    'No API key was sent. Send Authorization: Bearer <API_KEY>.',
  ),
  invalid_api_key: def(401, 'authentication_error', 'مفتاح الواجهة غير صالح أو منتهٍ.', 'The API key is invalid or has expired.'),
  page_session_invalid: def(
    401,
    'authentication_error',
    'انتهت جلسة التوقيع؛ افتح الرابط من جديد.',
    'The signing session has ended; open the link again.',
  ),
  ticket_invalid: def(
    401,
    'authentication_error',
    'تذكرة التوقيع غير صالحة أو منتهية أو مستخدمة؛ ابدأ التوقيع من جديد.',
    'The sign ticket is invalid, expired or already used; start the signature again.',
  ),
  // ours: GET /metrics (README, Operations)
  metrics_token_invalid: def(
    401,
    'authentication_error',
    'رمز المقاييس مفقود أو غير صحيح. أرسل Authorization: Bearer ورمز TAWQI_METRICS_TOKEN.',
    'The metrics token is missing or wrong. Send Authorization: Bearer <TAWQI_METRICS_TOKEN>.',
  ),
  // ours: the console (/console/api, README "The console")
  console_session_required: def(
    401,
    'authentication_error',
    'سجّل الدخول إلى لوحة التحكم أولًا؛ انتهت الجلسة أو لم تبدأ.',
    'Sign in to the console first; the session has ended or never started.',
  ),
  console_sign_in_failed: def(
    401,
    'authentication_error',
    'البريد الإلكتروني أو كلمة المرور غير صحيحة.',
    'The email or the password is not correct.',
  ),
  two_factor_failed: def(
    401,
    'authentication_error',
    'رمز التحقق أو رمز الاسترداد غير صحيح أو مستخدم من قبل.',
    'The verification code or recovery code is not correct, or was used already.',
  ),
  // 402
  plan_required: def(402, 'billing_error', 'الوضع الحي يحتاج باقة مدفوعة فعّالة.', 'Live mode needs an active paid plan.'),
  plan_expired: def(402, 'billing_error', 'انتهت سنة الاشتراك دون تجديد.', 'The subscription year has ended without renewal.'),
  insufficient_balance: def(
    402,
    'billing_error',
    'الرصيد لا يغطي التكلفة؛ لم يُنشأ شيء ولم يُرسل شيء.',
    'The balance does not cover the cost; nothing was created or sent.',
  ),
  // 403
  kyb_required: def(
    403,
    'permission_error',
    'يجب اعتماد توثيق الشركة قبل استخدام الوضع الحي.',
    'Company verification must be approved before using live mode.',
  ),
  plan_feature_unavailable: def(403, 'permission_error', 'هذه الميزة غير متاحة في باقتك.', 'This feature is not available on your plan.'),
  forbidden: def(403, 'permission_error', 'هذا المفتاح لا يملك صلاحية هذه العملية.', 'This key is not allowed to perform this operation.'),
  // ours: the console — a state change without the session's X-CSRF-Token, or from another origin
  csrf_failed: def(
    403,
    'permission_error',
    'رُفض الطلب: رمز الحماية من تزوير الطلبات مفقود أو غير صحيح، أو جاء الطلب من موقع آخر. أعد تحميل الصفحة.',
    'The request was refused: its CSRF token is missing or wrong, or it came from another site. Reload the page.',
  ),
  // ours: the test helpers (POST /test_helpers/…) act for a test signer; a live key may not use them
  test_mode_only: def(
    403,
    'permission_error',
    'أدوات الاختبار تعمل بمفتاح اختبار سري فقط (sk_test_…)؛ لا تمس الوضع الحي.',
    'Test helpers work with a secret test key only (sk_test_…); they never touch live mode.',
  ),
  ip_not_allowed: def(403, 'permission_error', 'عنوان IP هذا غير مسموح لهذا المفتاح.', 'This IP address is not allowed for this key.'),
  access_code_locked: def(
    403,
    'permission_error',
    'أُقفل رمز الدخول بعد محاولات خاطئة كثيرة؛ تواصل مع المرسل.',
    'The access code is locked after too many wrong attempts; contact the sender.',
  ),
  otp_locked: def(
    403,
    'permission_error',
    'أُقفل رمز التحقق بعد خمس محاولات خاطئة؛ اطلب رمزًا جديدًا.',
    'The verification code is locked after five wrong attempts; request a new one.',
  ),
  https_required: def(403, 'permission_error', 'الاتصال يجب أن يكون عبر HTTPS.', 'Requests must use HTTPS.'),
  // ours: GET /metrics without a token from an address that is neither loopback nor a trusted proxy
  metrics_forbidden: def(
    403,
    'permission_error',
    'المقاييس متاحة من العنوان المحلي والوكلاء الموثوقين فقط، أو برمز TAWQI_METRICS_TOKEN.',
    'Metrics are open only to loopback and trusted proxies, or with TAWQI_METRICS_TOKEN.',
  ),
  // 404 / 405 / 413 / 415
  not_found: def(404, 'invalid_request_error', 'المورد غير موجود.', 'The resource was not found.'),
  workflow_not_found: def(
    404,
    'invalid_request_error',
    'مسار العمل غير موجود في هذا الحساب.',
    'The workflow does not exist in this account.',
  ),
  method_not_allowed: def(
    405,
    'invalid_request_error',
    'هذه الطريقة غير مدعومة على هذا المسار.',
    'This HTTP method is not supported on this path.',
  ),
  request_too_large: def(
    413,
    'invalid_request_error',
    'نص الطلب أكبر من الحد المسموح.',
    'The request body is larger than the allowed limit.',
  ),
  // ours: a body that is not declared as JSON (text/plain, form-encoded, no Content-Type)
  unsupported_media_type: def(
    415,
    'invalid_request_error',
    'يجب أن يكون نص الطلب JSON مُرسلًا مع الترويسة Content-Type: application/json (ويجوز ; charset=utf-8).',
    'The request body must be JSON sent with Content-Type: application/json (optionally ; charset=utf-8).',
  ),
  // 409
  idempotency_in_progress: def(
    409,
    'idempotency_error',
    'طلب بنفس مفتاح عدم التكرار ما زال قيد التنفيذ.',
    'A request with the same Idempotency-Key is still in progress.',
  ),
  idempotency_key_reused: def(
    409,
    'idempotency_error',
    'مفتاح عدم التكرار استُخدم مع مسار آخر.',
    'This Idempotency-Key was used with a different path.',
  ),
  request_not_cancelable: def(
    409,
    'invalid_request_error',
    'لا يمكن إلغاء طلب مكتمل أو ملغى.',
    'A completed or canceled request cannot be canceled.',
  ),
  invalid_state: def(
    409,
    'invalid_request_error',
    'حالة الطلب لا تسمح بهذه العملية.',
    'The request’s state does not allow this operation.',
  ),
  template_key_taken: def(409, 'invalid_request_error', 'يوجد قالب آخر بالاسم نفسه.', 'Another template already has this title.'),
  pdf_not_ready: def(409, 'invalid_request_error', 'ملف PDF النهائي قيد التجهيز.', 'The final PDF is still being prepared.'),
  pdf_unavailable: def(
    409,
    'invalid_request_error',
    'تعذّر إنشاء ملف PDF النهائي؛ استخدم final_document_url.',
    'The final PDF could not be generated; use final_document_url.',
  ),
  workflow_not_live: def(
    409,
    'invalid_request_error',
    'مسار العمل غير منشور أو مؤرشف أو قالبه غير محدد.',
    'The workflow is unpublished, archived, or its fixed template is unset.',
  ),
  // 429
  too_many_requests: def(429, 'rate_limit_error', 'طلبات كثيرة جدًا. أعد المحاولة بعد قليل.', 'Too many requests. Retry later.'),
  daily_cap_reached: def(429, 'rate_limit_error', 'بلغ المفتاح العام حده اليومي.', 'This publishable key has reached its daily cap.'),
  reminder_too_soon: def(
    429,
    'rate_limit_error',
    'أُرسل تذكير لهذا الموقّع خلال الساعة الماضية.',
    'A reminder was sent to this signer within the last hour.',
  ),
  reminder_limit_reached: def(
    429,
    'rate_limit_error',
    'بلغ الطلب الحد الأقصى للتذكيرات (10).',
    'This request has reached its limit of 10 reminders.',
  ),
  otp_too_soon: def(429, 'rate_limit_error', 'انتظر قليلًا قبل طلب رمز جديد.', 'Wait a little before requesting a new code.'),
  test_daily_limit: def(
    429,
    'rate_limit_error',
    'تجاوز حساب الاختبار 20 طلبًا في اليوم.',
    'The test account has reached 20 requests today.',
  ),
  test_email_limit: def(
    429,
    'rate_limit_error',
    'تجاوز حساب الاختبار 50 رسالة بريد في اليوم.',
    'The test account has reached 50 emails today.',
  ),
  // 5xx
  internal_error: def(500, 'api_error', 'حدث خطأ داخلي. أعد المحاولة لاحقًا.', 'An internal error occurred. Please retry later.'),
  identity_provider_unavailable: def(
    502,
    'api_error',
    'تعذّر الوصول إلى مزوّد التحقق من الهوية؛ أعد المحاولة بعد قليل.',
    'The identity provider could not be reached; retry in a moment.',
  ),
  delivery_failed: def(
    502,
    'api_error',
    'لم تصل الدعوة إلى أي موقّع؛ أعيدت التكلفة وبقي الطلب مسودة.',
    'No invitation reached any signer; the cost was returned and the request stays a draft.',
  ),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;

export type Language = 'ar' | 'en';

export interface ErrorEnvelope {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    param: string | null;
    request_id: string;
    [extra: string]: unknown;
  };
}

export function errorMessage(code: ErrorCode, lang: Language): string {
  return ERRORS[code][lang];
}
