import Tawqi, { TawqiError } from '@tawqi/node';

const tawqi = new Tawqi(process.env.TAWQI_SECRET_KEY, {
  baseUrl: process.env.TAWQI_BASE_URL ?? 'http://127.0.0.1:8080',
  locale: 'en', // error messages in English (Arabic is the server's default)
});

// A contract template of your own (or pick one of the library's: tawqi.templates.list()).
const template = await tawqi.templates.create({
  title: 'Consulting agreement',
  language: 'en',
  body: 'The consultant, {{party}}, agrees to the terms below.',
  fields: [{ key: 'party', label: 'Consultant', required: true }],
});

// Every POST carries an Idempotency-Key (a fresh UUID unless you pass one): retrying it is safe.
const request = await tawqi.signatureRequests.create(
  {
    title: 'Consulting agreement: Amira Saleh',
    source: { type: 'template', template_id: template.id },
    signers: [{ name: 'Amira Saleh', email: 'amira@example.com', fields: { party: 'Amira Saleh' } }],
  },
  { idempotencyKey: `consulting-${template.id}` },
);
console.log('created', request.id, request.status, request.signers[0]?.signing_url);

// Lists page by themselves: `for await` asks for the next page when the loop gets there.
for await (const r of tawqi.signatureRequests.list({ status: 'sent', limit: 20 })) {
  console.log('listed', r.id, r.title);
}

// Errors are classes by error.type, with the stable code, the field at fault and the request id.
try {
  await tawqi.signatureRequests.create({
    source: { type: 'template', template_id: template.id },
    signers: [{ name: 'Bassem Ali', email: 'not-an-email' }],
  });
} catch (err) {
  if (!(err instanceof TawqiError)) throw err;
  console.log('refused', err.code, err.param, err.request_id);
}
