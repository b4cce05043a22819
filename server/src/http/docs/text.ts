/** The words of the API reference page (/docs), Arabic (the default) and English. */
export const DOCS_TEXT = {
  ar: {
    title: 'مرجع واجهة توقيع البرمجية',
    skip: 'تخطَّ إلى المحتوى',
    other: 'English',
    contents: 'المحتويات',
    intro:
      'واجهة برمجية على نمط Stripe لطلبات التوقيع الإلكتروني. أرسل مفتاحك في ترويسة Authorization وإصدار الواجهة في Svc-Version مع كل طلب. هذه الصفحة مبنية من وثيقة OpenAPI التي يقدّمها هذا الخادم:',
    base: 'العنوان الأساسي',
    operations: 'العمليات',
    parameters: 'المعاملات',
    name: 'الاسم',
    where: 'الموضع',
    required: 'مطلوب',
    yes: 'نعم',
    no: 'لا',
    body: 'جسم الطلب',
    answers: 'الإجابات',
    success: 'نجاح',
    errors: 'أخطاء',
    curl: 'الطلب بـ curl',
    node: 'الطلب بـ ‎@tawqi/node',
    response: 'مثال على الإجابة',
    binary: 'ملف (بايتات) وليس JSON',
    noKey: 'لا يحتاج مفتاحًا',
    webhooks: 'التحقق من توقيع الخطافات (webhooks)',
    webhookSteps: [
      'افصل t و v1 من ترويسة Svc-Signature (قد تحمل أكثر من v1 أثناء تدوير السر).',
      'النص الموقَّع = t ثم «.» ثم جسم الطلب كما وصل بالضبط (قبل أي تحليل JSON).',
      'احسب HMAC-SHA256 له بسر نقطة النهاية (whsec_…) بصيغة hex.',
      'قارنه بكل v1 في زمن ثابت.',
      'ارفض إن زاد الفرق المطلق بين الآن و t على 300 ثانية.',
    ],
    webhookNode: 'في Node.js تفعل ‎Tawqi.webhooks.constructEvent‎ الخطوات كلها:',
    errorTable: 'رموز الأخطاء',
    errorIntro: 'كل خطأ يصل في الغلاف {error: {type, code, message, param, request_id}}. اعتمد على code، فهو لا يتغير باللغة.',
    code: 'الرمز',
    status: 'الحالة',
    type: 'النوع',
    arabic: 'الرسالة بالعربية',
    english: 'الرسالة بالإنجليزية',
    changelog: 'سجل الإصدارات',
    current: 'الحالي',
    sunset: 'يتوقف في',
  },
  en: {
    title: 'Tawqi API reference',
    skip: 'Skip to content',
    other: 'العربية',
    contents: 'Contents',
    intro:
      'A Stripe-style API for e-signature requests. Send your key in the Authorization header and the API version in Svc-Version with every request. This page is built from the OpenAPI document this server serves:',
    base: 'Base URL',
    operations: 'Operations',
    parameters: 'Parameters',
    name: 'Name',
    where: 'In',
    required: 'Required',
    yes: 'yes',
    no: 'no',
    body: 'Request body',
    answers: 'Answers',
    success: 'Success',
    errors: 'Errors',
    curl: 'Request with curl',
    node: 'Request with @tawqi/node',
    response: 'Example answer',
    binary: 'a file (bytes), not JSON',
    noKey: 'needs no key',
    webhooks: 'Verifying webhook signatures',
    webhookSteps: [
      'Split t and v1 from the Svc-Signature header (during a secret rotation it carries more than one v1).',
      'Signed payload = t + "." + the raw body, bytes exactly as received (before any JSON parsing).',
      'Compute its HMAC-SHA256 with the endpoint secret (whsec_…), as hex.',
      'Compare it with every v1 in constant time.',
      'Reject when the absolute difference between now and t exceeds 300 seconds.',
    ],
    webhookNode: 'In Node.js, Tawqi.webhooks.constructEvent does every step:',
    errorTable: 'Error codes',
    errorIntro:
      'Every error arrives in the envelope {error: {type, code, message, param, request_id}}. Rely on code: it never changes with the language.',
    code: 'Code',
    status: 'Status',
    type: 'Type',
    arabic: 'Message in Arabic',
    english: 'Message in English',
    changelog: 'Changelog',
    current: 'current',
    sunset: 'sunset',
  },
} as const;

export type DocsText = (typeof DOCS_TEXT)['ar' | 'en'];

export const WEBHOOK_EXAMPLE = `import { createServer } from 'node:http';
import Tawqi from '@tawqi/node';

const secret = process.env.TAWQI_WEBHOOK_SECRET; // whsec_…

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = Tawqi.webhooks.constructEvent(Buffer.concat(chunks), req.headers['svc-signature'], secret, 300);
      console.log(event.id, event.type);
      res.writeHead(200).end();
    } catch (err) {
      res.writeHead(400).end();
    }
  });
}).listen(3000);`;
