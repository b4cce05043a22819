import { PDFDocument } from 'pdf-lib';
import { writeFileSync } from 'node:fs';
import { RenderDoc, rgbHex } from './src/sealing/pdf/canvas.js';
import { layoutText } from './src/sealing/pdf/text.js';
const pdf = await PDFDocument.create();
const doc = new RenderDoc(pdf, 595.28, 841.89);
const page = doc.addPage();
const paras = [
  'اتفاقية عدم إفصاح',
  'يلتزم الطرفان بعدم الإفصاح عن المعلومات السرية لأي طرف ثالث.',
  'لا يجوز الإفصاح. الطرف الأول: John Smith (john@example.com) والطرف الثاني: سارة أحمد، المرجع REF-7K3M9Q والعنوان 192.168.10.24 بتاريخ 2026-07-01 09:00 UTC.',
  'المبلغ 1,250.50 جنيه (مئة) [اختبار] <script>alert(1)</script>',
  'The parties agree: AVATAR office fi — naïve café. Name: محمد علي.',
];
let y = 800;
for (const p of paras) {
  const rtl = /[\u0600-\u06FF]/.test(p[0]!);
  for (const line of layoutText(p, { size: 14 }, 480, rtl ? 'rtl' : 'ltr')) {
    const x = line.rtl ? 560 - line.width : 60;
    page.text(line, x, y, rgbHex('#111111'));
    y -= 26;
  }
  y -= 8;
}
doc.finish();
writeFileSync('/tmp/pdfexp/exp7.pdf', await pdf.save());
