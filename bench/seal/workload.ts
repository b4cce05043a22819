/**
 * What one sealed document of bench/seal is made of: a custom English template whose body fills two
 * A4 pages (about 900 words, four fields), two signers, and their drawn signatures (600×200 RGBA
 * PNGs with anti-aliased pen strokes, encoded here with node:zlib like a browser canvas export).
 */
import { deflateSync } from 'node:zlib';

export const SIGNERS = [
  { name: 'Amira Hassan', email: 'amira.hassan@bench.example' },
  { name: 'Omar Farouk', email: 'omar.farouk@bench.example' },
] as const;

/** The field values, all given by the first signer (the document is filled from every signer's values). */
export const FIELD_VALUES = {
  client_name: 'Nile Valley Trading S.A.E.',
  provider_name: 'Delta Software Services LLC',
  effective_date: '2026-07-01',
  monthly_fee: '48500',
} as const;

const PARAGRAPHS = [
  'This Master Services Agreement (the "Agreement") is entered into on {{effective_date}} between {{client_name}} (the "Client") and {{provider_name}} (the "Provider"), each a "Party" and together the "Parties".',
  '1. Services. The Provider shall perform the software development, hosting, maintenance and support services described in each statement of work signed by both Parties (the "Services"). Each statement of work forms part of this Agreement.',
  '2. Standard of performance. The Provider shall perform the Services with reasonable skill, care and diligence, in accordance with good industry practice, using suitably qualified personnel, and in compliance with all laws and regulations that apply to the Provider.',
  '3. Client obligations. The Client shall provide timely access to its premises, systems, information and personnel as reasonably required for the Provider to perform the Services, and shall make decisions and give approvals within the periods stated in the relevant statement of work. The Provider is not liable for any delay caused by the Client failing to meet these obligations.',
  '4. Fees and payment. In consideration of the Services the Client shall pay the Provider a monthly fee of {{monthly_fee}} Egyptian pounds, exclusive of value added tax, together with any additional fees set out in a statement of work. The Provider shall invoice monthly in arrears. Invoices are payable within thirty days of receipt. Late payments bear interest at the rate published by the Central Bank of Egypt plus two percent per year, calculated daily from the due date until payment in full.',
  '5. Intellectual property. All intellectual property rights in the deliverables created specifically for the Client under a statement of work shall vest in the Client upon full payment of the fees for those deliverables. The Provider retains all rights in its pre-existing materials, tools and know-how, and grants the Client a non-exclusive, perpetual, royalty-free licence to use them to the extent they are incorporated into the deliverables.',
  '6. Confidentiality. Each Party shall keep confidential all information disclosed by the other Party that is marked as confidential or would reasonably be understood to be confidential, and shall use it only for the purposes of this Agreement. These obligations do not apply to information that is or becomes public other than through a breach of this Agreement, that was lawfully known to the recipient before disclosure, or that must be disclosed by law or by order of a competent court. These obligations survive termination for three years.',
  '7. Data protection. Where the Provider processes personal data on behalf of the Client, it shall do so only on the documented instructions of the Client, implement appropriate technical and organisational security measures, ensure that its personnel are bound by confidentiality, notify the Client without undue delay of any personal data breach, and on termination delete or return all personal data at the choice of the Client, in accordance with the Personal Data Protection Law No. 151 of 2020.',
  '8. Warranties. Each Party warrants that it has full power and authority to enter into this Agreement. The Provider warrants that the deliverables will conform in all material respects to their specifications for ninety days after acceptance, and shall correct any nonconformity reported within that period at no additional charge.',
  "9. Limitation of liability. Neither Party shall be liable for any indirect or consequential loss, loss of profit or loss of business opportunity. Each Party's total liability arising out of or in connection with this Agreement in any contract year shall not exceed the total fees paid and payable in that year. Nothing in this Agreement limits liability for fraud, for wilful misconduct, or for any liability that cannot be limited by law.",
  "10. Term and termination. This Agreement starts on the effective date and continues for an initial term of two years, after which it renews automatically for successive periods of one year unless either Party gives at least ninety days' written notice before the end of the current term. Either Party may terminate this Agreement immediately by written notice if the other Party commits a material breach that is not remedied within thirty days of a notice requiring it to be remedied, or if the other Party becomes insolvent or enters into any arrangement with its creditors.",
  '11. Governing law and disputes. This Agreement is governed by the laws of the Arab Republic of Egypt. The Parties shall first attempt to settle any dispute through good faith negotiation between their senior representatives. Any dispute not settled within thirty days shall be finally resolved by arbitration at the Cairo Regional Centre for International Commercial Arbitration under its rules in force at the time, by a sole arbitrator, in Cairo, in the English language.',
  '12. General. This Agreement, together with its statements of work, is the entire agreement between the Parties and supersedes all prior agreements and understandings relating to its subject matter. No amendment is effective unless made in writing and signed by both Parties. This Agreement may be signed electronically, and an electronic signature has the same effect as a handwritten signature under Law No. 15 of 2004 on the Regulation of Electronic Signature.',
  'In witness whereof, the Parties have signed this Agreement by their authorised representatives on the dates shown below.',
];

/** POST /api/v1/templates body: ~900 words that fill two A4 pages of contract text. */
export const TEMPLATE = {
  title: 'Master Services Agreement (seal benchmark)',
  language: 'en',
  body: PARAGRAPHS.join('\n\n'),
  fields: [
    { key: 'client_name', label: 'Client name', type: 'text', required: true },
    { key: 'provider_name', label: 'Provider name', type: 'text', required: true },
    { key: 'effective_date', label: 'Effective date', type: 'date', required: true },
    { key: 'monthly_fee', label: 'Monthly fee (EGP)', type: 'number', required: true },
  ],
} as const;

export const templateWords = (): number => TEMPLATE.body.split(/\s+/).filter((w) => w.length > 0).length;

// ---------------------------------------------------------------------------------------------
// Drawn signatures: a pen moving along a cursive-like path, stamped as anti-aliased discs whose
// radius follows the pen speed, into a transparent RGBA canvas; PNG with per-row adaptive filters.

const WIDTH = 600;
const HEIGHT = 200;
const INK = [22, 32, 92] as const;

/** A small seeded PRNG (mulberry32), so each signer's signature is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stamp a disc of radius r at (cx, cy): alpha is the maximum coverage seen (no darkening on overlap). */
function stamp(alpha: Uint8Array, cx: number, cy: number, r: number): void {
  const x0 = Math.max(0, Math.floor(cx - r - 1));
  const x1 = Math.min(WIDTH - 1, Math.ceil(cx + r + 1));
  const y0 = Math.max(0, Math.floor(cy - r - 1));
  const y1 = Math.min(HEIGHT - 1, Math.ceil(cy + r + 1));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
      const cover = Math.min(1, Math.max(0, r - d + 0.5));
      const a = Math.round(cover * 255);
      const i = y * WIDTH + x;
      if (a > alpha[i]!) alpha[i] = a;
    }
  }
}

/** Draw a polyline of pen points with a speed-dependent width (faster strokes are thinner). */
function stroke(alpha: Uint8Array, points: readonly [number, number][]): void {
  for (let i = 1; i < points.length; i++) {
    const [ax, ay] = points[i - 1]!;
    const [bx, by] = points[i]!;
    const len = Math.hypot(bx - ax, by - ay);
    const r = Math.max(1.1, 2.8 - len * 0.18);
    const steps = Math.max(1, Math.ceil(len / 0.6));
    for (let s = 0; s <= steps; s++) stamp(alpha, ax + ((bx - ax) * s) / steps, ay + ((by - ay) * s) / steps, r);
  }
}

/** The pixels of one signature: a run of loops (the name), then a flourish underneath. */
function drawSignature(seed: number): Uint8Array {
  const rnd = prng(seed);
  const alpha = new Uint8Array(WIDTH * HEIGHT);
  // The name: a pen moving right while oscillating in loops of varying height.
  const name: [number, number][] = [];
  const loops = 9 + Math.floor(rnd() * 4);
  const phases = Array.from({ length: loops }, () => ({ h: 22 + rnd() * 38, w: 0.8 + rnd() * 0.5 }));
  for (let t = 0; t <= loops * Math.PI * 2; t += 0.05) {
    const k = Math.min(loops - 1, Math.floor(t / (Math.PI * 2)));
    const p = phases[k]!;
    const x = 40 + t * (430 / (loops * Math.PI * 2)) + 14 * Math.sin(t * p.w + seed);
    const y = 105 - p.h * Math.sin(t) * Math.abs(Math.sin(t / 2 + 0.3)) + 6 * Math.sin(t / 3);
    name.push([x, y]);
  }
  stroke(alpha, name);
  // A capital: a tall loop at the start.
  const capital: [number, number][] = [];
  for (let t = 0; t <= Math.PI * 2.2; t += 0.04)
    capital.push([52 + 22 * Math.sin(t) - t * 3, 70 + 50 * Math.cos(t * 0.5) - 10 * Math.sin(t)]);
  stroke(alpha, capital);
  // The flourish: a long, fast sweep under the name, rising at the end.
  const flourish: [number, number][] = [];
  for (let t = 0; t <= 1; t += 0.01) flourish.push([60 + 470 * t, 160 - 18 * Math.sin(t * Math.PI) - 40 * t ** 6 + 3 * Math.sin(t * 20)]);
  stroke(alpha, flourish);
  // A dot (an i) and a short crossing stroke.
  stamp(alpha, 300 + rnd() * 100, 45 + rnd() * 10, 3);
  stroke(alpha, [
    [180, 75],
    [215, 70],
    [250, 68],
  ]);
  return alpha;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** RGBA rows, each with the filter (None, Sub or Up) of smallest absolute sum, as libpng's heuristic does. */
function filterRows(rgba: Uint8Array): Buffer {
  const stride = WIDTH * 4;
  const out = Buffer.alloc((stride + 1) * HEIGHT);
  const candidate = [Buffer.alloc(stride), Buffer.alloc(stride), Buffer.alloc(stride)];
  for (let y = 0; y < HEIGHT; y++) {
    const row = rgba.subarray(y * stride, (y + 1) * stride);
    const above = y > 0 ? rgba.subarray((y - 1) * stride, y * stride) : null;
    let best = 0;
    let bestSum = Infinity;
    for (let f = 0; f < 3; f++) {
      const c = candidate[f]!;
      let sum = 0;
      for (let i = 0; i < stride; i++) {
        const left = i >= 4 ? row[i - 4]! : 0;
        const up = above ? above[i]! : 0;
        const v = (row[i]! - (f === 0 ? 0 : f === 1 ? left : up)) & 0xff;
        c[i] = v;
        sum += v < 128 ? v : 256 - v;
      }
      if (sum < bestSum) {
        bestSum = sum;
        best = f;
      }
    }
    out[y * (stride + 1)] = best;
    candidate[best]!.copy(out, y * (stride + 1) + 1);
  }
  return out;
}

/** A 600×200 8-bit RGBA PNG of a drawn signature (transparent background, dark blue ink). */
export function signaturePng(seed: number): Buffer {
  const alpha = drawSignature(seed);
  const rgba = new Uint8Array(WIDTH * HEIGHT * 4);
  for (let i = 0; i < alpha.length; i++) {
    if (alpha[i] === 0) continue;
    rgba[i * 4] = INK[0];
    rgba[i * 4 + 1] = INK[1];
    rgba[i * 4 + 2] = INK[2];
    rgba[i * 4 + 3] = alpha[i]!;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(WIDTH, 0);
  ihdr.writeUInt32BE(HEIGHT, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(filterRows(rgba), { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const dataUrl = (png: Buffer): string => `data:image/png;base64,${png.toString('base64')}`;
