/**
 * The library of ready-made contract templates that ships with Tawqi: five short-form contracts
 * (mutual NDA, employment offer letter, service agreement, residential lease, sale of goods), each
 * in Arabic and in English. Pure data; no I/O. Bodies are plain text with {{key}} placeholders, and
 * every placeholder has exactly one field definition (checked by templateProblem in templates.ts).
 */

export type TemplateFieldType = 'text' | 'date' | 'number' | 'email';

export interface TemplateFieldDefinition {
  key: string;
  label: string;
  type: TemplateFieldType;
  required: boolean;
}

export interface LibraryTemplate {
  /** Fixed id, tpl_<slug>_<language>. */
  id: string;
  /** Title in the template's language. */
  title: string;
  language: 'ar' | 'en';
  /** Plain-text contract: paragraphs separated by blank lines, numbered clauses, {{key}} placeholders. */
  body: string;
  /** Field definitions, labels in the template's language. */
  fields: TemplateFieldDefinition[];
}

function field(key: string, label: string, type: TemplateFieldType, required = true): TemplateFieldDefinition {
  return { key, label, type, required };
}

// ---------------------------------------------------------------------------------------------
// Mutual non-disclosure agreement
// ---------------------------------------------------------------------------------------------

const NDA_EN: LibraryTemplate = {
  id: 'tpl_nda_en',
  title: 'Mutual Non-Disclosure Agreement',
  language: 'en',
  body: `MUTUAL NON-DISCLOSURE AGREEMENT

This Mutual Non-Disclosure Agreement (the "Agreement") is made on {{effective_date}} between:

(1) {{party_a_name}} ("Party A")
Address: {{party_a_address}}
Email: {{party_a_email}}

(2) {{party_b_name}} ("Party B")
Address: {{party_b_address}}
Email: {{party_b_email}}

each a "Party" and together the "Parties".

1. Purpose. The Parties intend to exchange information for the purpose of {{purpose}} (the "Purpose"). Each Party may act as both disclosing and receiving Party.

2. Confidential Information. "Confidential Information" means all business, financial, technical and commercial information, in any form, disclosed by one Party to the other in connection with the Purpose that is marked as confidential or would reasonably be understood to be confidential. It excludes information that: (a) is or becomes public other than through a breach of this Agreement; (b) was lawfully known to the receiving Party before disclosure; (c) is lawfully received from a third party free of any duty of confidence; or (d) is independently developed without use of the disclosing Party's information.

3. Obligations. The receiving Party shall: (a) use Confidential Information solely for the Purpose; (b) disclose it only to its directors, employees and professional advisers who need to know it and are bound by confidentiality duties no less protective than this Agreement; and (c) protect it with at least reasonable care.

4. Compelled Disclosure. If disclosure is required by law or by order of a competent authority, the receiving Party shall, where lawful, promptly notify the disclosing Party and disclose only the part legally required.

5. Return of Information. On written request or on termination, the receiving Party shall return or destroy all Confidential Information, except copies it is required by law to retain.

6. Ownership. Confidential Information remains the property of the disclosing Party. No licence or other right is granted under this Agreement.

7. Term and Termination. This Agreement continues for {{term_years}} year(s) from the date above, unless terminated earlier by either Party on {{notice_days}} days' written notice. The obligations in clauses 3 to 6 survive for {{confidentiality_years}} year(s) after expiry or termination.

8. Remedies. A breach of this Agreement may cause irreparable harm, and the disclosing Party may seek urgent or interim relief in addition to damages.

9. Notices. Notices shall be in writing and delivered to a Party's address or email stated above.

10. Governing Law. This Agreement is governed by the laws of {{governing_law}}. Any dispute arising from it shall be referred to the courts of {{jurisdiction}}.

11. Entire Agreement. This Agreement is the entire agreement between the Parties on its subject and may be amended only in writing signed by both Parties.

12. Execution. This Agreement is signed electronically through Tawqi. Each Party agrees that its electronic signature is binding and has the same effect as a handwritten signature.

Party A: {{party_a_name}}

Party B: {{party_b_name}}`,
  fields: [
    field('effective_date', 'Agreement date', 'date'),
    field('party_a_name', 'Party A name', 'text'),
    field('party_a_address', 'Party A address', 'text'),
    field('party_a_email', 'Party A email for notices', 'email', false),
    field('party_b_name', 'Party B name', 'text'),
    field('party_b_address', 'Party B address', 'text'),
    field('party_b_email', 'Party B email for notices', 'email', false),
    field('purpose', 'Purpose of the disclosure', 'text'),
    field('term_years', 'Agreement term (years)', 'number'),
    field('notice_days', 'Termination notice period (days)', 'number'),
    field('confidentiality_years', 'Confidentiality period after termination (years)', 'number'),
    field('governing_law', 'Governing law (country)', 'text'),
    field('jurisdiction', 'Competent courts (city)', 'text'),
  ],
};

const NDA_AR: LibraryTemplate = {
  id: 'tpl_nda_ar',
  title: 'اتفاقية عدم إفصاح متبادلة',
  language: 'ar',
  body: `اتفاقية عدم إفصاح متبادلة

حُررت هذه الاتفاقية بتاريخ {{effective_date}} بين كلٍّ من:

أولاً: {{party_a_name}} (ويُشار إليه فيما يلي بـ"الطرف الأول")
العنوان: {{party_a_address}}
البريد الإلكتروني: {{party_a_email}}

ثانياً: {{party_b_name}} (ويُشار إليه فيما يلي بـ"الطرف الثاني")
العنوان: {{party_b_address}}
البريد الإلكتروني: {{party_b_email}}

تمهيد: لما كان الطرفان يرغبان في تبادل بعض المعلومات بغرض {{purpose}} (ويُشار إليه فيما يلي بـ"الغرض")، فقد اتفقا، وهما بكامل أهليتهما المعتبرة قانوناً للتعاقد، على ما يلي:

البند (1) – التمهيد: يُعدّ التمهيد السابق جزءاً لا يتجزأ من هذه الاتفاقية.

البند (2) – المعلومات السرية: يُقصد بالمعلومات السرية كل معلومة أو بيان، أياً كان شكله أو وسيلة نقله، يُفصح عنه أحد الطرفين للآخر في إطار الغرض، بما في ذلك المعلومات التجارية والمالية والفنية، متى وُسم بأنه سري أو دلّت طبيعته على ذلك. ولا يُعدّ من المعلومات السرية ما كان متاحاً للعامة دون إخلال بهذه الاتفاقية، أو ما كان معلوماً للطرف المتلقي بطريق مشروع قبل الإفصاح عنه، أو ما تلقاه من الغير دون التزام بالسرية، أو ما طوّره مستقلاً دون الاستعانة بها.

البند (3) – التزامات الطرف المتلقي: يلتزم الطرف المتلقي بألا يستخدم المعلومات السرية إلا في حدود الغرض، وألا يُفصح عنها إلا لمديريه وموظفيه ومستشاريه المهنيين الذين تقتضي أعمالهم الاطلاع عليها، شريطة التزامهم بواجب سرية لا يقل عما تفرضه هذه الاتفاقية، وأن يبذل في المحافظة عليها عناية الشخص الحريص.

البند (4) – الإفصاح الإلزامي: إذا أُلزم الطرف المتلقي بالإفصاح عن أي من المعلومات السرية بموجب القانون أو بأمر من جهة مختصة، وجب عليه، متى جاز ذلك قانوناً، إخطار الطرف المُفصح فوراً، وألا يُفصح إلا عن القدر الذي يوجبه القانون.

البند (5) – رد المعلومات: يلتزم الطرف المتلقي، بناءً على طلب كتابي من الطرف المُفصح أو عند انتهاء هذه الاتفاقية، برد المعلومات السرية أو إتلافها، فيما عدا النسخ التي يوجب القانون الاحتفاظ بها.

البند (6) – الملكية: تظل المعلومات السرية مملوكة للطرف المُفصح، ولا يترتب على هذه الاتفاقية منح أي ترخيص أو حق عليها.

البند (7) – المدة والإنهاء: تسري هذه الاتفاقية لمدة ({{term_years}}) سنة من تاريخ تحريرها، ما لم يُنهِها أحد الطرفين بإخطار كتابي للطرف الآخر قبل ({{notice_days}}) يوماً على الأقل. ويظل الطرفان ملتزمين بأحكام البنود من (3) إلى (6) لمدة ({{confidentiality_years}}) سنة من تاريخ انتهاء الاتفاقية أو إنهائها.

البند (8) – الجزاءات: يُقر كل طرف بأن الإخلال بأحكام هذه الاتفاقية قد يُلحق بالطرف الآخر ضرراً يتعذر تداركه، ويحق للطرف المتضرر طلب اتخاذ الإجراءات الوقتية والتحفظية اللازمة، فضلاً عن المطالبة بالتعويض.

البند (9) – الإخطارات: تكون الإخطارات كتابية، وتُوجَّه إلى عنوان الطرف أو بريده الإلكتروني المبيّنين في صدر هذه الاتفاقية.

البند (10) – القانون الواجب التطبيق: تخضع هذه الاتفاقية لأحكام قوانين {{governing_law}}، وتختص محاكم {{jurisdiction}} بالفصل في أي نزاع ينشأ عنها أو يتصل بها.

البند (11) – كامل الاتفاق: تُمثل هذه الاتفاقية كامل الاتفاق بين الطرفين في شأن موضوعها، ولا يجوز تعديلها إلا كتابةً بتوقيع الطرفين.

البند (12) – التوقيع: وُقّعت هذه الاتفاقية إلكترونياً عبر منصة «توقيع» (Tawqi)، ويُقر كل طرف بأن توقيعه الإلكتروني ملزم له وله ذات الحجية المقررة للتوقيع الخطي.

الطرف الأول: {{party_a_name}}

الطرف الثاني: {{party_b_name}}`,
  fields: [
    field('effective_date', 'تاريخ الاتفاقية', 'date'),
    field('party_a_name', 'اسم الطرف الأول', 'text'),
    field('party_a_address', 'عنوان الطرف الأول', 'text'),
    field('party_a_email', 'البريد الإلكتروني للطرف الأول للإخطارات', 'email', false),
    field('party_b_name', 'اسم الطرف الثاني', 'text'),
    field('party_b_address', 'عنوان الطرف الثاني', 'text'),
    field('party_b_email', 'البريد الإلكتروني للطرف الثاني للإخطارات', 'email', false),
    field('purpose', 'الغرض من تبادل المعلومات', 'text'),
    field('term_years', 'مدة الاتفاقية (بالسنوات)', 'number'),
    field('notice_days', 'مهلة الإخطار بالإنهاء (بالأيام)', 'number'),
    field('confidentiality_years', 'مدة استمرار السرية بعد الانتهاء (بالسنوات)', 'number'),
    field('governing_law', 'القانون الواجب التطبيق (الدولة)', 'text'),
    field('jurisdiction', 'المحاكم المختصة (المدينة)', 'text'),
  ],
};

// ---------------------------------------------------------------------------------------------
// Employment offer letter
// ---------------------------------------------------------------------------------------------

const EMPLOYMENT_OFFER_EN: LibraryTemplate = {
  id: 'tpl_employment_offer_en',
  title: 'Employment Offer Letter',
  language: 'en',
  body: `EMPLOYMENT OFFER LETTER

Date: {{offer_date}}

To: {{candidate_name}}
Email: {{candidate_email}}

Dear {{candidate_name}},

{{employer_name}} (the "Company") is pleased to offer you employment on the terms set out below.

1. Position. You will be employed as {{job_title}} in the {{department}} department. Your duties will be those customarily associated with this position, together with any other reasonable duties the Company assigns to you in line with your qualifications.

Reporting to: {{reporting_to}}

2. Start Date and Place of Work. Your employment will start on {{start_date}}. Your principal place of work will be {{work_location}}.

3. Salary. You will receive a gross monthly salary of {{monthly_salary}} {{currency}}, paid by bank transfer at the end of each calendar month, subject to any deductions required by law.

Allowances and benefits: {{allowances}}

4. Probation. The first {{probation_months}} month(s) of your employment are a probationary period, during which either party may end the employment in accordance with applicable law.

5. Working Hours and Leave. Your normal working hours are {{weekly_hours}} hours per week. You are entitled to {{annual_leave_days}} days of paid annual leave per year, in addition to official public holidays.

6. Confidentiality. During and after your employment, you shall keep confidential all non-public information about the Company, its clients and its business, and use it only to perform your duties. All work you produce in the course of your employment belongs to the Company.

7. Termination. After probation, either party may end the employment by giving {{notice_days}} days' written notice or pay in lieu of notice, without prejudice to the Company's right to terminate without notice in the cases permitted by law.

8. Conditions. This offer is conditional on satisfactory verification of your identity, qualifications and references, and on your obtaining any required work permit.

9. Governing Law. This offer and your employment are governed by the laws of {{governing_law}}, including its labour law. A full employment contract consistent with this letter will be issued no later than your start date; where the law prescribes a form of contract, that form prevails.

10. Acceptance. This offer remains open until {{acceptance_deadline}}. To accept it, please sign this letter electronically through Tawqi. Your electronic signature confirms your acceptance of these terms and is binding in the same way as a handwritten signature.

For the Company: {{employer_name}}

Accepted by: {{candidate_name}}`,
  fields: [
    field('offer_date', 'Offer date', 'date'),
    field('employer_name', 'Employer name', 'text'),
    field('candidate_name', 'Candidate name', 'text'),
    field('candidate_email', 'Candidate email', 'email', false),
    field('job_title', 'Job title', 'text'),
    field('department', 'Department', 'text'),
    field('reporting_to', 'Reports to (manager or position)', 'text', false),
    field('start_date', 'Start date', 'date'),
    field('work_location', 'Place of work', 'text'),
    field('monthly_salary', 'Gross monthly salary', 'number'),
    field('currency', 'Currency', 'text'),
    field('allowances', 'Allowances and benefits', 'text', false),
    field('probation_months', 'Probation period (months)', 'number'),
    field('weekly_hours', 'Working hours per week', 'number'),
    field('annual_leave_days', 'Annual leave (days)', 'number'),
    field('notice_days', 'Notice period (days)', 'number'),
    field('acceptance_deadline', 'Offer valid until', 'date'),
    field('governing_law', 'Governing law (country)', 'text'),
  ],
};

const EMPLOYMENT_OFFER_AR: LibraryTemplate = {
  id: 'tpl_employment_offer_ar',
  title: 'خطاب عرض عمل',
  language: 'ar',
  body: `خطاب عرض عمل

التاريخ: {{offer_date}}

إلى السيد/السيدة: {{candidate_name}}
البريد الإلكتروني: {{candidate_email}}

تحية طيبة وبعد،

يسرّ {{employer_name}} (ويُشار إليها فيما يلي بـ"الشركة") أن تعرض عليكم الالتحاق بالعمل لديها وفقاً للشروط الآتية:

(1) الوظيفة: تُعيَّنون في وظيفة {{job_title}} بإدارة {{department}}، وتتولون المهام المعتادة لهذه الوظيفة، إلى جانب ما تكلفكم به الشركة من مهام أخرى معقولة تتناسب مع مؤهلاتكم.

الرئيس المباشر: {{reporting_to}}

(2) تاريخ المباشرة ومقر العمل: تبدأ علاقة العمل اعتباراً من {{start_date}}، ويكون مقر عملكم الرئيسي في {{work_location}}.

(3) الأجر: تتقاضون أجراً شهرياً إجمالياً قدره {{monthly_salary}} {{currency}}، يُصرف بتحويل بنكي في نهاية كل شهر ميلادي، مع مراعاة الاستقطاعات المقررة قانوناً.

البدلات والمزايا: {{allowances}}

(4) فترة التجربة: تخضعون لفترة تجربة مدتها ({{probation_months}}) أشهر من تاريخ المباشرة، يجوز خلالها لأي من الطرفين إنهاء علاقة العمل وفقاً لأحكام القانون المعمول به.

(5) ساعات العمل والإجازات: تبلغ ساعات العمل الاعتيادية ({{weekly_hours}}) ساعة أسبوعياً، وتستحقون إجازة سنوية مدفوعة الأجر مدتها ({{annual_leave_days}}) يوماً، فضلاً عن العطلات الرسمية.

(6) السرية: تلتزمون، أثناء سريان علاقة العمل وبعد انتهائها، بالمحافظة على سرية جميع المعلومات غير المعلنة المتعلقة بالشركة وعملائها وأعمالها، وبعدم استخدامها إلا في أداء مهامكم الوظيفية. وتؤول إلى الشركة ملكية كل ما تنجزونه من أعمال بمناسبة وظيفتكم.

(7) إنهاء علاقة العمل: بعد انقضاء فترة التجربة، يجوز لأي من الطرفين إنهاء علاقة العمل بموجب إخطار كتابي قبل ({{notice_days}}) يوماً، أو بأداء ما يعادل أجر مهلة الإخطار، وذلك دون إخلال بحق الشركة في الفصل دون إخطار في الحالات التي يجيزها القانون.

(8) شروط العرض: يتوقف نفاذ هذا العرض على التحقق على نحو مُرضٍ من هويتكم ومؤهلاتكم وخبراتكم السابقة، وعلى استخراج تصريح العمل اللازم عند الاقتضاء.

(9) القانون الواجب التطبيق: يخضع هذا العرض وعلاقة العمل الناشئة عنه لأحكام قوانين {{governing_law}}، بما فيها قانون العمل. ويُحرَّر عقد عمل تفصيلي متوافق مع هذا الخطاب في موعد أقصاه تاريخ المباشرة، وإذا أوجب القانون نموذجاً معيناً لعقد العمل كان ذلك النموذج هو المعتمد.

(10) القبول: يظل هذا العرض قائماً حتى {{acceptance_deadline}}، ويكون قبوله بالتوقيع على هذا الخطاب إلكترونياً عبر منصة «توقيع» (Tawqi). ويُعدّ توقيعكم الإلكتروني إقراراً بقبول هذه الشروط، وله ذات الحجية المقررة للتوقيع الخطي.

وتفضلوا بقبول فائق الاحترام،

عن الشركة: {{employer_name}}

الموافقة والقبول: {{candidate_name}}`,
  fields: [
    field('offer_date', 'تاريخ العرض', 'date'),
    field('employer_name', 'اسم جهة العمل', 'text'),
    field('candidate_name', 'اسم المرشح', 'text'),
    field('candidate_email', 'البريد الإلكتروني للمرشح', 'email', false),
    field('job_title', 'المسمى الوظيفي', 'text'),
    field('department', 'الإدارة', 'text'),
    field('reporting_to', 'الرئيس المباشر', 'text', false),
    field('start_date', 'تاريخ المباشرة', 'date'),
    field('work_location', 'مقر العمل', 'text'),
    field('monthly_salary', 'الأجر الشهري الإجمالي', 'number'),
    field('currency', 'العملة', 'text'),
    field('allowances', 'البدلات والمزايا', 'text', false),
    field('probation_months', 'مدة فترة التجربة (بالأشهر)', 'number'),
    field('weekly_hours', 'ساعات العمل الأسبوعية', 'number'),
    field('annual_leave_days', 'الإجازة السنوية (بالأيام)', 'number'),
    field('notice_days', 'مهلة الإخطار (بالأيام)', 'number'),
    field('acceptance_deadline', 'آخر موعد لقبول العرض', 'date'),
    field('governing_law', 'القانون الواجب التطبيق (الدولة)', 'text'),
  ],
};

// ---------------------------------------------------------------------------------------------
// Service agreement
// ---------------------------------------------------------------------------------------------

const SERVICE_AGREEMENT_EN: LibraryTemplate = {
  id: 'tpl_service_agreement_en',
  title: 'Service Agreement',
  language: 'en',
  body: `SERVICE AGREEMENT

This Service Agreement (the "Agreement") is made on {{agreement_date}} between:

(1) {{client_name}} (the "Client")
Address: {{client_address}}
Email: {{client_email}}

(2) {{provider_name}} (the "Service Provider")
Address: {{provider_address}}
Email: {{provider_email}}

1. Services. The Service Provider shall provide the following services to the Client: {{services_description}} (the "Services"). It shall perform the Services with due skill and care, in accordance with good industry practice and applicable law.

2. Term. This Agreement starts on {{start_date}} and continues until {{end_date}}, unless terminated earlier under clause 7.

3. Fees and Payment. The Client shall pay the Service Provider a total fee of {{fee_amount}} {{currency}}, payable as follows: {{payment_schedule}}. The Client shall pay each undisputed invoice within {{payment_days}} days of receipt. Fees exclude value added tax and other applicable taxes, which the Client shall bear where due.

4. Client Cooperation. The Client shall provide the information, access and cooperation reasonably required to perform the Services.

5. Confidentiality. Each party shall keep confidential all information received from the other in connection with this Agreement and shall not disclose it without the other party's prior written consent, except as required by law. This obligation survives termination.

6. Intellectual Property. On full payment, deliverables created specifically for the Client under this Agreement belong to the Client. Each party keeps its pre-existing intellectual property.

7. Termination. Either party may terminate this Agreement on {{notice_days}} days' written notice. Either party may terminate it immediately by written notice if the other commits a material breach and fails to remedy it within {{cure_days}} days of being notified. On termination, the Client shall pay for Services properly performed up to the termination date.

8. Liability. Neither party is liable for indirect or consequential loss. Each party's total liability under this Agreement is limited to the total fees paid or payable under it, except in cases of fraud, gross negligence, wilful misconduct or breach of confidentiality.

9. Independent Contractor. The Service Provider acts as an independent contractor. Nothing in this Agreement creates a partnership, agency or employment relationship.

10. Notices. Notices shall be in writing and delivered to a party's address or email stated above.

11. Governing Law and Disputes. This Agreement is governed by the laws of {{governing_law}}. The parties shall first try to settle any dispute amicably; if it is not settled within thirty (30) days, it shall be referred to the competent courts of {{jurisdiction}}.

12. Execution. This Agreement is signed electronically through Tawqi. The parties agree that their electronic signatures are binding and have the same legal effect as handwritten signatures.

Client: {{client_name}}

Service Provider: {{provider_name}}`,
  fields: [
    field('agreement_date', 'Agreement date', 'date'),
    field('client_name', 'Client name', 'text'),
    field('client_address', 'Client address', 'text'),
    field('client_email', 'Client email for notices', 'email', false),
    field('provider_name', 'Service provider name', 'text'),
    field('provider_address', 'Service provider address', 'text'),
    field('provider_email', 'Service provider email for notices', 'email', false),
    field('services_description', 'Description of the services', 'text'),
    field('start_date', 'Start date', 'date'),
    field('end_date', 'End date', 'date'),
    field('fee_amount', 'Total fee', 'number'),
    field('currency', 'Currency', 'text'),
    field('payment_schedule', 'Payment schedule (e.g. monthly in arrears)', 'text'),
    field('payment_days', 'Invoice payment period (days)', 'number'),
    field('notice_days', 'Termination notice period (days)', 'number'),
    field('cure_days', 'Period to remedy a breach (days)', 'number'),
    field('governing_law', 'Governing law (country)', 'text'),
    field('jurisdiction', 'Competent courts (city)', 'text'),
  ],
};

const SERVICE_AGREEMENT_AR: LibraryTemplate = {
  id: 'tpl_service_agreement_ar',
  title: 'عقد تقديم خدمات',
  language: 'ar',
  body: `عقد تقديم خدمات

حُرر هذا العقد بتاريخ {{agreement_date}} بين كلٍّ من:

أولاً: {{client_name}} (ويُشار إليه فيما يلي بـ"العميل")
العنوان: {{client_address}}
البريد الإلكتروني: {{client_email}}

ثانياً: {{provider_name}} (ويُشار إليه فيما يلي بـ"مقدم الخدمة")
العنوان: {{provider_address}}
البريد الإلكتروني: {{provider_email}}

وقد اتفق الطرفان، وهما بكامل أهليتهما المعتبرة قانوناً للتعاقد، على ما يلي:

البند (1) – موضوع العقد: يلتزم مقدم الخدمة بأن يقدم للعميل الخدمات الآتية: {{services_description}} (ويُشار إليها فيما يلي بـ"الخدمات")، وأن يؤديها بالعناية والمهارة المهنية الواجبة، وفقاً للأصول المهنية والأنظمة المعمول بها.

البند (2) – مدة العقد: يسري هذا العقد اعتباراً من {{start_date}} حتى {{end_date}}، ما لم يُنهَ قبل ذلك وفقاً لأحكام البند (7).

البند (3) – المقابل المالي وطريقة السداد: يلتزم العميل بأن يؤدي لمقدم الخدمة مقابلاً إجمالياً قدره {{fee_amount}} {{currency}}، يُسدَّد على النحو الآتي: {{payment_schedule}}. ويلتزم العميل بسداد كل فاتورة غير متنازع عليها خلال ({{payment_days}}) يوماً من تاريخ استلامها. ولا يشمل المقابل ضريبة القيمة المضافة وغيرها من الضرائب المقررة، ويتحملها العميل متى كانت مستحقة.

البند (4) – التزامات العميل: يلتزم العميل بتزويد مقدم الخدمة بما يلزم بصورة معقولة من معلومات وتسهيلات وتعاون لتنفيذ الخدمات.

البند (5) – السرية: يلتزم كل طرف بالمحافظة على سرية المعلومات التي يتلقاها من الطرف الآخر بمناسبة هذا العقد، وبعدم الإفصاح عنها إلا بموافقته الكتابية المسبقة أو إذا أوجب القانون ذلك. ويظل هذا الالتزام قائماً بعد انتهاء العقد.

البند (6) – الملكية الفكرية: تؤول إلى العميل، بعد سداد المقابل كاملاً، ملكية المخرجات التي أُعدّت خصيصاً له بموجب هذا العقد، ويحتفظ كل طرف بحقوق الملكية الفكرية السابقة على التعاقد.

البند (7) – إنهاء العقد: يجوز لأي من الطرفين إنهاء هذا العقد بموجب إخطار كتابي يُوجَّه إلى الطرف الآخر قبل ({{notice_days}}) يوماً. ويجوز لأي منهما إنهاؤه فوراً بإخطار كتابي إذا أخلّ الطرف الآخر بأيٍّ من التزاماته الجوهرية ولم يتدارك الإخلال خلال ({{cure_days}}) يوماً من تاريخ إخطاره بذلك. وفي جميع الأحوال يلتزم العميل بسداد مقابل الخدمات المؤداة فعلياً حتى تاريخ الإنهاء.

البند (8) – حدود المسؤولية: لا يُسأل أي من الطرفين عن الأضرار غير المباشرة أو التبعية، ولا تتجاوز المسؤولية الإجمالية لأي منهما بموجب هذا العقد مجموع المقابل المدفوع أو المستحق بموجبه، وذلك فيما عدا حالات الغش أو الخطأ الجسيم أو الإخلال بالسرية.

البند (9) – استقلال مقدم الخدمة: يؤدي مقدم الخدمة التزاماته بصفته متعاقداً مستقلاً، ولا يترتب على هذا العقد قيام شراكة أو وكالة أو علاقة عمل بين الطرفين.

البند (10) – الإخطارات: تكون الإخطارات كتابية، وتُوجَّه إلى عنوان الطرف أو بريده الإلكتروني المبيّنين في صدر هذا العقد.

البند (11) – القانون الواجب التطبيق وتسوية المنازعات: يخضع هذا العقد لأحكام قوانين {{governing_law}}. ويسعى الطرفان إلى تسوية أي نزاع ينشأ عنه ودياً، فإن تعذرت التسوية خلال ثلاثين (30) يوماً، اختصت محاكم {{jurisdiction}} بالفصل فيه.

البند (12) – التوقيع: وُقّع هذا العقد إلكترونياً عبر منصة «توقيع» (Tawqi)، ويُقر الطرفان بأن توقيعهما الإلكتروني ملزم لهما وله ذات الحجية القانونية المقررة للتوقيع الخطي.

العميل: {{client_name}}

مقدم الخدمة: {{provider_name}}`,
  fields: [
    field('agreement_date', 'تاريخ العقد', 'date'),
    field('client_name', 'اسم العميل', 'text'),
    field('client_address', 'عنوان العميل', 'text'),
    field('client_email', 'البريد الإلكتروني للعميل للإخطارات', 'email', false),
    field('provider_name', 'اسم مقدم الخدمة', 'text'),
    field('provider_address', 'عنوان مقدم الخدمة', 'text'),
    field('provider_email', 'البريد الإلكتروني لمقدم الخدمة للإخطارات', 'email', false),
    field('services_description', 'وصف الخدمات', 'text'),
    field('start_date', 'تاريخ البدء', 'date'),
    field('end_date', 'تاريخ الانتهاء', 'date'),
    field('fee_amount', 'المقابل الإجمالي', 'number'),
    field('currency', 'العملة', 'text'),
    field('payment_schedule', 'طريقة السداد (مثال: شهرياً في نهاية كل شهر)', 'text'),
    field('payment_days', 'مهلة سداد الفواتير (بالأيام)', 'number'),
    field('notice_days', 'مهلة الإخطار بالإنهاء (بالأيام)', 'number'),
    field('cure_days', 'مهلة تدارك الإخلال (بالأيام)', 'number'),
    field('governing_law', 'القانون الواجب التطبيق (الدولة)', 'text'),
    field('jurisdiction', 'المحاكم المختصة (المدينة)', 'text'),
  ],
};

// ---------------------------------------------------------------------------------------------
// Residential lease
// ---------------------------------------------------------------------------------------------

const LEASE_EN: LibraryTemplate = {
  id: 'tpl_lease_en',
  title: 'Residential Lease Agreement',
  language: 'en',
  body: `RESIDENTIAL LEASE AGREEMENT

This Residential Lease Agreement (the "Lease") is made on {{lease_date}} between:

(1) {{landlord_name}} (the "Landlord")
ID / registration no.: {{landlord_id_number}}

(2) {{tenant_name}} (the "Tenant")
ID no.: {{tenant_id_number}}

1. Property. The Landlord leases to the Tenant the residential unit at {{property_address}}, with its fixtures and fittings (the "Property"), for use solely as a private residence for the Tenant and the Tenant's family.

Description of the Property: {{property_description}}

2. Term. The Lease is for {{lease_months}} month(s) starting on {{start_date}}. It may be renewed by written agreement of the parties, subject to applicable law.

3. Rent. The monthly rent is {{monthly_rent}} {{currency}}, payable in advance no later than day {{payment_day}} of each month by bank transfer or any other method agreed in writing.

4. Security Deposit. On signing, the Tenant shall pay a security deposit of {{security_deposit}} {{currency}}. The Landlord shall refund it at the end of the Lease and on return of the Property, less any unpaid rent, utility charges or cost of repairing damage beyond normal wear and tear.

5. Utilities and Maintenance. The Tenant shall pay all utility and other consumption-based charges during the term, keep the Property in good condition and carry out minor repairs. The Landlord is responsible for structural repairs and for repairs needed to keep the Property fit for habitation.

6. Use and Alterations. The Tenant shall not sublet or assign the Lease, change the use of the Property or make structural alterations without the Landlord's prior written consent, and shall comply with the building rules and applicable law.

7. Inspection. The Landlord may inspect the Property at reasonable times on reasonable prior notice to the Tenant.

8. Expiry and Termination. Either party may elect not to renew the Lease by giving the other at least {{notice_days}} days' written notice before the end of the term. The Landlord may terminate the Lease in accordance with the law if the Tenant fails to pay rent when due or materially breaches this Lease. At the end of the Lease, the Tenant shall return the Property in the condition in which it was received, fair wear and tear excepted.

9. Confidentiality. Each party shall keep the other party's personal data confidential and use it only for the purposes of this Lease.

10. Registration. Where the law requires the Lease to be registered or attested with a competent authority, the parties shall cooperate to complete it.

11. Governing Law. This Lease is governed by the laws of {{governing_law}}. Any dispute arising from it shall be referred to the competent courts or rental dispute authority of {{jurisdiction}}.

12. Execution. This Lease is signed electronically through Tawqi. The parties agree that their electronic signatures are binding and have the same effect as handwritten signatures.

Landlord: {{landlord_name}}

Tenant: {{tenant_name}}`,
  fields: [
    field('lease_date', 'Lease date', 'date'),
    field('landlord_name', 'Landlord name', 'text'),
    field('landlord_id_number', 'Landlord ID or registration number', 'text', false),
    field('tenant_name', 'Tenant name', 'text'),
    field('tenant_id_number', 'Tenant ID number', 'text', false),
    field('property_address', 'Property address', 'text'),
    field('property_description', 'Property description (e.g. two-bedroom apartment, third floor)', 'text', false),
    field('start_date', 'Lease start date', 'date'),
    field('lease_months', 'Lease term (months)', 'number'),
    field('monthly_rent', 'Monthly rent', 'number'),
    field('currency', 'Currency', 'text'),
    field('payment_day', 'Rent due day of the month', 'number'),
    field('security_deposit', 'Security deposit', 'number'),
    field('notice_days', 'Non-renewal notice period (days)', 'number'),
    field('governing_law', 'Governing law (country)', 'text'),
    field('jurisdiction', 'Competent courts (city)', 'text'),
  ],
};

const LEASE_AR: LibraryTemplate = {
  id: 'tpl_lease_ar',
  title: 'عقد إيجار وحدة سكنية',
  language: 'ar',
  body: `عقد إيجار وحدة سكنية

حُرر هذا العقد بتاريخ {{lease_date}} بين كلٍّ من:

أولاً: {{landlord_name}} (طرف أول – مؤجر)
رقم الهوية / السجل: {{landlord_id_number}}

ثانياً: {{tenant_name}} (طرف ثانٍ – مستأجر)
رقم الهوية: {{tenant_id_number}}

وقد أقر الطرفان بأهليتهما للتعاقد، واتفقا على ما يلي:

البند (1) – العين المؤجرة: أجّر الطرف الأول إلى الطرف الثاني، القابل لذلك، الوحدة السكنية الكائنة في {{property_address}} بما فيها من تجهيزات وملحقات (ويُشار إليها فيما يلي بـ"العين المؤجرة")، لاستعمالها سكناً خاصاً للمستأجر وأسرته دون غيره من الأغراض.

وصف العين المؤجرة: {{property_description}}

البند (2) – مدة الإيجار: مدة هذا العقد ({{lease_months}}) شهراً تبدأ من {{start_date}}، ويجوز تجديدها باتفاق كتابي بين الطرفين، مع مراعاة أحكام القانون المعمول به.

البند (3) – الأجرة: الأجرة الشهرية مبلغ {{monthly_rent}} {{currency}}، تُدفع مقدماً في موعد أقصاه اليوم ({{payment_day}}) من كل شهر، بتحويل بنكي أو بأي وسيلة أخرى يتفق عليها الطرفان كتابةً.

البند (4) – مبلغ التأمين: يلتزم المستأجر بأن يؤدي عند التوقيع مبلغ {{security_deposit}} {{currency}} على سبيل التأمين، يُرد إليه عند انتهاء العقد وتسليم العين المؤجرة، بعد خصم ما قد يكون مستحقاً من أجرة أو مقابل استهلاك أو تكاليف إصلاح ما يجاوز الاستعمال المألوف من تلفيات.

البند (5) – المرافق والصيانة: يتحمل المستأجر طوال مدة الإيجار قيمة استهلاك الكهرباء والمياه والغاز والإنترنت وسائر الخدمات القائمة على الاستهلاك، ويلتزم بالمحافظة على العين المؤجرة وإجراء الترميمات البسيطة، بينما يتحمل المؤجر الإصلاحات الإنشائية والإصلاحات الضرورية لبقاء العين صالحة للسكنى.

البند (6) – الاستعمال والتعديلات: لا يجوز للمستأجر التأجير من الباطن أو التنازل عن الإيجار أو تغيير وجه استعمال العين المؤجرة أو إجراء أي تعديلات إنشائية فيها إلا بموافقة كتابية مسبقة من المؤجر، ويلتزم بالتقيد بأنظمة المبنى والقوانين المعمول بها.

البند (7) – المعاينة: يحق للمؤجر معاينة العين المؤجرة في الأوقات المناسبة بعد إخطار المستأجر مسبقاً بمدة معقولة.

البند (8) – انتهاء العقد وفسخه: يجوز لأي من الطرفين عدم تجديد العقد بإخطار الطرف الآخر كتابةً قبل انتهاء مدته بـ({{notice_days}}) يوماً على الأقل. ويحق للمؤجر طلب فسخ العقد وفقاً للقانون إذا تأخر المستأجر في سداد الأجرة في مواعيدها أو أخلّ إخلالاً جوهرياً بأي من التزاماته. ويلتزم المستأجر عند انتهاء العقد بتسليم العين المؤجرة بالحالة التي تسلمها بها، مع مراعاة الاستهلاك العادي.

البند (9) – السرية: يلتزم كل طرف بالمحافظة على سرية البيانات الشخصية للطرف الآخر، وبعدم استخدامها إلا لأغراض هذا العقد.

البند (10) – التسجيل: إذا أوجب القانون تسجيل هذا العقد أو توثيقه لدى جهة مختصة، التزم الطرفان بالتعاون لإتمام ذلك.

البند (11) – القانون الواجب التطبيق: يخضع هذا العقد لأحكام قوانين {{governing_law}}، وتختص محاكم {{jurisdiction}} أو الجهة المختصة فيها بنظر المنازعات الإيجارية بالفصل في أي نزاع ينشأ عنه.

البند (12) – التوقيع: وُقّع هذا العقد إلكترونياً عبر منصة «توقيع» (Tawqi)، ويُقر الطرفان بأن توقيعهما الإلكتروني ملزم لهما وله ذات الحجية المقررة للتوقيع الخطي.

المؤجر (الطرف الأول): {{landlord_name}}

المستأجر (الطرف الثاني): {{tenant_name}}`,
  fields: [
    field('lease_date', 'تاريخ العقد', 'date'),
    field('landlord_name', 'اسم المؤجر', 'text'),
    field('landlord_id_number', 'رقم هوية المؤجر أو سجله', 'text', false),
    field('tenant_name', 'اسم المستأجر', 'text'),
    field('tenant_id_number', 'رقم هوية المستأجر', 'text', false),
    field('property_address', 'عنوان العين المؤجرة', 'text'),
    field('property_description', 'وصف العين المؤجرة (مثال: شقة من غرفتين بالطابق الثالث)', 'text', false),
    field('start_date', 'تاريخ بدء الإيجار', 'date'),
    field('lease_months', 'مدة الإيجار (بالأشهر)', 'number'),
    field('monthly_rent', 'الأجرة الشهرية', 'number'),
    field('currency', 'العملة', 'text'),
    field('payment_day', 'يوم استحقاق الأجرة من كل شهر', 'number'),
    field('security_deposit', 'مبلغ التأمين', 'number'),
    field('notice_days', 'مهلة الإخطار بعدم التجديد (بالأيام)', 'number'),
    field('governing_law', 'القانون الواجب التطبيق (الدولة)', 'text'),
    field('jurisdiction', 'المحاكم المختصة (المدينة)', 'text'),
  ],
};

// ---------------------------------------------------------------------------------------------
// Sale of goods
// ---------------------------------------------------------------------------------------------

const SALE_EN: LibraryTemplate = {
  id: 'tpl_sale_en',
  title: 'Sale of Goods Contract',
  language: 'en',
  body: `SALE OF GOODS CONTRACT

This Sale of Goods Contract (the "Contract") is made on {{contract_date}} between:

(1) {{seller_name}} (the "Seller")
Address: {{seller_address}}

(2) {{buyer_name}} (the "Buyer")
Address: {{buyer_address}}

1. Goods. The Seller agrees to sell and the Buyer agrees to buy {{quantity}} {{unit}} of {{goods_description}} (the "Goods"), conforming to the specifications agreed between the parties.

2. Price. The total price is {{total_price}} {{currency}}, based on a unit price of {{unit_price}} {{currency}}. Unless otherwise stated, the price excludes value added tax and other applicable taxes.

3. Payment. The Buyer shall pay {{advance_percent}}% of the total price as an advance payment within seven (7) days of signing this Contract, and the balance on delivery and acceptance of the Goods.

4. Delivery, Risk and Title. The Seller shall deliver the Goods to {{delivery_place}} no later than {{delivery_date}}. Risk passes to the Buyer on delivery; ownership passes only when the total price has been paid in full.

5. Inspection and Acceptance. The Buyer shall inspect the Goods within {{inspection_days}} days of delivery and notify the Seller in writing of any shortage or non-conformity. Goods not rejected within that period are deemed accepted, without prejudice to the Buyer's rights in respect of latent defects. The Seller shall, at its own cost, replace or repair non-conforming Goods or refund their price.

6. Warranty. The Seller warrants that it owns the Goods free of any third-party rights, and that the Goods will be free from defects in materials and workmanship for {{warranty_months}} month(s) from delivery.

7. Late Delivery. If the Seller fails to deliver on time for a reason not attributable to the Buyer or to force majeure, the Buyer may, after written notice, terminate this Contract and recover any amounts paid, without prejudice to its right to claim damages.

8. Force Majeure. Neither party is liable for failure to perform caused by events beyond its reasonable control, provided it promptly notifies the other party.

9. Confidentiality. Each party shall keep confidential the terms of this Contract and any commercial information received from the other party.

10. Termination. Either party may terminate this Contract by written notice if the other party materially breaches it and fails to remedy the breach within {{cure_days}} days of being notified.

11. Governing Law. This Contract is governed by the laws of {{governing_law}}. The courts of {{jurisdiction}} have jurisdiction over any dispute arising out of or in connection with it.

12. Execution. This Contract is signed electronically through Tawqi. The parties agree that their electronic signatures are binding and have the same effect as handwritten signatures.

Seller: {{seller_name}}

Buyer: {{buyer_name}}`,
  fields: [
    field('contract_date', 'Contract date', 'date'),
    field('seller_name', 'Seller name', 'text'),
    field('seller_address', 'Seller address', 'text'),
    field('buyer_name', 'Buyer name', 'text'),
    field('buyer_address', 'Buyer address', 'text'),
    field('quantity', 'Quantity', 'number'),
    field('unit', 'Unit of measure (e.g. pieces, tonnes)', 'text'),
    field('goods_description', 'Description of the goods', 'text'),
    field('total_price', 'Total price', 'number'),
    field('unit_price', 'Unit price', 'number'),
    field('currency', 'Currency', 'text'),
    field('advance_percent', 'Advance payment (% of total price)', 'number'),
    field('delivery_place', 'Place of delivery', 'text'),
    field('delivery_date', 'Delivery date', 'date'),
    field('inspection_days', 'Inspection period (days)', 'number'),
    field('warranty_months', 'Warranty period (months)', 'number'),
    field('cure_days', 'Period to remedy a breach (days)', 'number'),
    field('governing_law', 'Governing law (country)', 'text'),
    field('jurisdiction', 'Competent courts (city)', 'text'),
  ],
};

const SALE_AR: LibraryTemplate = {
  id: 'tpl_sale_ar',
  title: 'عقد بيع بضائع',
  language: 'ar',
  body: `عقد بيع بضائع

حُرر هذا العقد بتاريخ {{contract_date}} بين كلٍّ من:

أولاً: {{seller_name}} (ويُشار إليه فيما يلي بـ"البائع")
العنوان: {{seller_address}}

ثانياً: {{buyer_name}} (ويُشار إليه فيما يلي بـ"المشتري")
العنوان: {{buyer_address}}

وقد اتفق الطرفان، وهما بكامل أهليتهما المعتبرة قانوناً للتعاقد، على ما يلي:

البند (1) – المبيع: يلتزم البائع بأن يبيع إلى المشتري، ويلتزم المشتري بأن يشتري منه، كمية قدرها {{quantity}} {{unit}} من {{goods_description}} (ويُشار إليها فيما يلي بـ"البضائع")، مطابقة للمواصفات المتفق عليها بين الطرفين.

البند (2) – الثمن: الثمن الإجمالي للبضائع مبلغ {{total_price}} {{currency}}، محسوباً على أساس سعر الوحدة البالغ {{unit_price}} {{currency}}، ولا يشمل ضريبة القيمة المضافة وغيرها من الضرائب المقررة ما لم يُنص على خلاف ذلك.

البند (3) – السداد: يؤدي المشتري نسبة ({{advance_percent}}%) من الثمن الإجمالي دفعةً مقدمة خلال سبعة (7) أيام من تاريخ توقيع هذا العقد، ويؤدي الباقي عند تسليم البضائع وقبولها.

البند (4) – التسليم وتبعة الهلاك ونقل الملكية: يلتزم البائع بتسليم البضائع في {{delivery_place}} في موعد أقصاه {{delivery_date}}. وتنتقل تبعة الهلاك إلى المشتري بالتسليم، ولا تنتقل إليه ملكية البضائع إلا بعد سداد الثمن كاملاً.

البند (5) – الفحص والقبول: يلتزم المشتري بفحص البضائع خلال ({{inspection_days}}) أيام من تاريخ تسلمها، وبإخطار البائع كتابةً بأي نقص أو عدم مطابقة. وتُعدّ البضائع التي لم يُعترض عليها خلال هذه المدة مقبولة، دون إخلال بحق المشتري في ضمان العيوب الخفية. ويلتزم البائع، على نفقته، باستبدال البضائع غير المطابقة أو إصلاحها أو رد ثمنها.

البند (6) – الضمان: يضمن البائع أنه المالك للبضائع وأنها خالية من أي حق للغير، كما يضمن خلوها من عيوب المواد والصناعة لمدة ({{warranty_months}}) شهراً من تاريخ التسليم.

البند (7) – التأخر في التسليم: إذا تأخر البائع في التسليم لسبب لا يرجع إلى المشتري أو إلى قوة قاهرة، جاز للمشتري، بعد إخطاره كتابةً، فسخ العقد واسترداد ما سبق له أداؤه، مع حفظ حقه في المطالبة بالتعويض.

البند (8) – القوة القاهرة: لا يُسأل أي من الطرفين عن عدم تنفيذ التزاماته متى كان ذلك راجعاً إلى قوة قاهرة أو ظرف خارج عن إرادته، شريطة أن يُخطر الطرف الآخر بذلك فور وقوعه.

البند (9) – السرية: يلتزم كل من الطرفين بالمحافظة على سرية شروط هذا العقد وأي معلومات تجارية يتلقاها من الطرف الآخر.

البند (10) – الفسخ: يجوز لأي من الطرفين فسخ هذا العقد بإخطار كتابي إذا أخلّ الطرف الآخر إخلالاً جوهرياً بالتزاماته ولم يتدارك هذا الإخلال خلال ({{cure_days}}) يوماً من تاريخ إخطاره بذلك.

البند (11) – القانون الواجب التطبيق: يخضع هذا العقد لأحكام قوانين {{governing_law}}، وتختص محاكم {{jurisdiction}} بالفصل في أي نزاع ينشأ عنه أو يتصل به.

البند (12) – التوقيع: وُقّع هذا العقد إلكترونياً عبر منصة «توقيع» (Tawqi)، ويُقر الطرفان بأن توقيعهما الإلكتروني ملزم لهما وله ذات الحجية المقررة للتوقيع الخطي.

البائع: {{seller_name}}

المشتري: {{buyer_name}}`,
  fields: [
    field('contract_date', 'تاريخ العقد', 'date'),
    field('seller_name', 'اسم البائع', 'text'),
    field('seller_address', 'عنوان البائع', 'text'),
    field('buyer_name', 'اسم المشتري', 'text'),
    field('buyer_address', 'عنوان المشتري', 'text'),
    field('quantity', 'الكمية', 'number'),
    field('unit', 'وحدة القياس (مثال: قطعة، طن)', 'text'),
    field('goods_description', 'وصف البضائع', 'text'),
    field('total_price', 'الثمن الإجمالي', 'number'),
    field('unit_price', 'سعر الوحدة', 'number'),
    field('currency', 'العملة', 'text'),
    field('advance_percent', 'الدفعة المقدمة (نسبة مئوية من الثمن)', 'number'),
    field('delivery_place', 'مكان التسليم', 'text'),
    field('delivery_date', 'موعد التسليم', 'date'),
    field('inspection_days', 'مهلة الفحص (بالأيام)', 'number'),
    field('warranty_months', 'مدة الضمان (بالأشهر)', 'number'),
    field('cure_days', 'مهلة تدارك الإخلال (بالأيام)', 'number'),
    field('governing_law', 'القانون الواجب التطبيق (الدولة)', 'text'),
    field('jurisdiction', 'المحاكم المختصة (المدينة)', 'text'),
  ],
};

/** The shipped library, Arabic first within each contract. */
export const TEMPLATE_LIBRARY: readonly LibraryTemplate[] = [
  NDA_AR,
  NDA_EN,
  EMPLOYMENT_OFFER_AR,
  EMPLOYMENT_OFFER_EN,
  SERVICE_AGREEMENT_AR,
  SERVICE_AGREEMENT_EN,
  LEASE_AR,
  LEASE_EN,
  SALE_AR,
  SALE_EN,
];
