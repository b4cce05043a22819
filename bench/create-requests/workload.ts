/** What one benchmark request is made of: shared by the driver and the Tawqi server it starts. */

export const API_PATH = '/api/v1/signature_requests';

/** The three signers of every request; on Tawqi they are the benchmark account's team emails. */
export const SIGNERS = [
  { name: 'Amira Hassan', email: 'amira@bench.example' },
  { name: 'Omar Farouk', email: 'omar@bench.example' },
  { name: 'Laila Mahmoud', email: 'laila@bench.example' },
] as const;

/** A small custom template with one optional field, so signers need no field values. */
export const TEMPLATE = {
  title: 'Benchmark agreement',
  language: 'en',
  body: 'This agreement is made between the parties below. {{note}}',
  fields: [{ key: 'note', label: 'Note', type: 'text', required: false }],
} as const;

/** The JSON body of POST /api/v1/signature_requests. */
export function createBody(templateId: string): string {
  return JSON.stringify({
    title: 'Benchmark agreement',
    source: { type: 'template', template_id: templateId },
    signers: SIGNERS.map((s) => ({ name: s.name, email: s.email })),
  });
}
