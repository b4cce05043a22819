/**
 * The final PDF is PDF/A-3b and carries its own evidence (README "Archival PDF/A-3b and embedded
 * evidence"). No full ISO 19005 validator runs here (veraPDF is Java and in neither registry), so
 * each requirement is checked on its own with real tools: qpdf (--check, --json object dump,
 * stream data), poppler (pdfinfo, pdffonts, pdfdetach, pdfsig), openssl (pkeyutl, ts) — on every
 * format's final output: platform-evidence (unsigned), pades-t and pades-lt (signed, the checks
 * read the last revision after the signature and DSS updates).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { XMLValidator } from 'fast-xml-parser';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { ManualClock } from '../../server/src/clock.js';
import { buildEvidence } from '../../server/src/sealing/evidence.js';
import { filePkiStorage, loadOrCreatePki, toPem, type Pki } from '../../server/src/sealing/pki/index.js';
import { renderFinalPdf } from '../../server/src/sealing/pdf/index.js';
import { sealedFinalPdf } from '../../server/src/sealing/seal.js';
import type { FinalDocumentInput } from '../../server/src/sealing/types.js';
import { opensslEd25519Verify, opensslTimestampVerify } from '../support/opensslVerify.js';
import { pdfFonts, pdfInfo, qpdfCheck } from '../support/pdfTools.js';
import { PDF_A3_RELAXED, beyondPdfA3, preflight } from '../support/preflight.js';

const run = promisify(execFile);
const T0 = Date.UTC(2026, 6, 1, 9, 0, 0) / 1000;
const FORMATS = ['platform-evidence', 'pades-t', 'pades-lt'] as const;

function inputFor(format: string, livemode = true): FinalDocumentInput {
  return {
    request_id: `req_${format.replace(/-/g, '')}`,
    reference: 'TWQ-2026-ARCH1',
    title: 'اتفاقية عدم إفصاح (NDA) 2026',
    language: 'ar',
    legal_level: format === 'platform-evidence' ? 'ses' : 'aes',
    format,
    livemode,
    document_text: 'المادة 1: السرية.\n\nArticle 2: term of 12 months.',
    document_hash: 'a1'.repeat(32),
    created_at: T0,
    completed_at: T0 + 3600,
    sender: { account_name: 'شركة المثال', brand_name: 'Example & <Co>' },
    signers: [
      {
        id: 'sig_1',
        name: 'علي حسن',
        email_masked: 'a***@example.com',
        phone_masked: null,
        order: 1,
        method: 'draw',
        signature_png: null,
        signed_at: T0 + 1800,
        ip: '198.51.100.7',
        user_agent: 'ArchivalTest/1.0',
        identity: null,
      },
    ],
    trail: [
      { at: T0, type: 'signature_request.created', actor: 'sender', ip: null, user_agent: null },
      { at: T0 + 1800, type: 'signer.signed', actor: 'علي حسن', ip: '198.51.100.7', user_agent: 'ArchivalTest/1.0' },
    ],
    verification_url: 'https://sign.example.test/verify/TWQ-2026-ARCH1',
  };
}

// ---------------------------------------------------------------------------------------------
// qpdf's JSON view of the last revision: names "/X", strings "u:text" or "b:hex", references "n 0 R".

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Dict = Record<string, Json>;
interface Objects {
  file: string;
  all: Record<string, { value?: Json; stream?: { dict: Dict } }>;
}

let work: string;
async function objectsOf(pdf: Uint8Array, name: string): Promise<Objects> {
  const file = path.join(work, `${name}.pdf`);
  writeFileSync(file, pdf);
  const { stdout } = await run('qpdf', ['--json=2', '--json-key=qpdf', file], { maxBuffer: 64 << 20 });
  return { file, all: (JSON.parse(stdout) as { qpdf: [unknown, Objects['all']] }).qpdf[1] };
}
const objKey = (ref: Json) => `obj:${String(ref)}`;
/** A dictionary: direct, an indirect object's value, or a stream's dictionary. */
function dict(o: Objects, ref: Json): Dict {
  if (ref && typeof ref === 'object' && !Array.isArray(ref)) return ref;
  const entry = o.all[objKey(ref)];
  assert.ok(entry, `no object ${String(ref)}`);
  return (entry.stream?.dict ?? entry.value) as Dict;
}
const trailer = (o: Objects) => o.all.trailer!.value as Dict;
const catalog = (o: Objects) => dict(o, trailer(o)['/Root']!);
async function streamData(o: Objects, ref: Json): Promise<Buffer> {
  const [num, gen] = String(ref).split(' ');
  const { stdout } = await run('qpdf', [`--show-object=${num},${gen}`, '--filtered-stream-data', o.file], {
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
  return stdout;
}
/** The embedded files as pdfdetach saves them, in a folder of their own. */
async function detach(o: Objects): Promise<string> {
  const dir = `${o.file}-files`;
  await run('mkdir', ['-p', dir]);
  await run('pdfdetach', ['-saveall', '-o', dir, o.file]);
  return dir;
}
const text = (value: Json | undefined) => String(value).replace(/^u:/, '');

describe('archival PDF/A-3b and embedded evidence', () => {
  let pki: Pki;
  const outputs = new Map<string, Objects>();
  const bytes = new Map<string, Uint8Array>();
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-pdfa-'));
    pki = await loadOrCreatePki(filePkiStorage(work), new ManualClock(T0 * 1000), 'http://sign.example.test');
    for (const format of FORMATS) {
      const pdf = await sealedFinalPdf(pki, inputFor(format), 'https://sign.example.test');
      bytes.set(format, pdf);
      outputs.set(format, await objectsOf(pdf, format));
    }
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('XMP: an unfiltered Metadata stream in the catalog, well-formed XML, PDF/A-3 conformance B, agreeing with Info', async () => {
    for (const format of FORMATS) {
      const o = outputs.get(format)!;
      const ref = catalog(o)['/Metadata'];
      const meta = dict(o, ref!);
      assert.equal(meta['/Type'], '/Metadata', format);
      assert.equal(meta['/Subtype'], '/XML', format);
      assert.equal(meta['/Filter'], undefined, `${format}: PDF/A forbids a filter on the metadata stream`);
      const xml = (await streamData(o, ref!)).toString('utf8');
      assert.equal(XMLValidator.validate(xml), true, format);
      assert.match(xml, /<pdfaid:part>3<\/pdfaid:part>/);
      assert.match(xml, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
      const info = await pdfInfo(bytes.get(format)!);
      const unescape = (s: string) =>
        s
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&');
      const field = (re: RegExp) => unescape(re.exec(xml)?.[1] ?? '');
      assert.equal(field(/<dc:title><rdf:Alt><rdf:li xml:lang="x-default">([^<]*)</), info.Title, format);
      assert.equal(field(/<dc:creator><rdf:Seq><rdf:li>([^<]*)</), info.Author);
      assert.equal(info.Author, 'Example & <Co>');
      assert.equal(field(/<dc:description><rdf:Alt><rdf:li xml:lang="x-default">([^<]*)</), info.Subject);
      assert.equal(field(/<pdf:Keywords>([^<]*)</), info.Keywords);
      assert.equal(field(/<pdf:Producer>([^<]*)</), info.Producer);
      assert.equal(field(/<xmp:CreatorTool>([^<]*)</), info.Creator);
      const infoDict = dict(o, trailer(o)['/Info']!);
      const expected = new Date((T0 + 3600) * 1000);
      assert.equal(text(infoDict['/CreationDate']), 'D:20260701100000Z');
      assert.equal(field(/<xmp:CreateDate>([^<]*)</), expected.toISOString().replace('.000', ''));
      assert.equal(field(/<xmp:ModifyDate>([^<]*)</), expected.toISOString().replace('.000', ''));
      assert.equal(text(infoDict['/ModDate']), 'D:20260701100000Z');
      assert.equal(field(/<dc:language><rdf:Bag><rdf:li>([^<]*)</), text(catalog(o)['/Lang']));
    }
  });

  test('output intent: GTS_PDFA1 with an embedded RGB display (mntr) ICC profile; qpdf --check accepts the file', async () => {
    for (const format of FORMATS) {
      const o = outputs.get(format)!;
      const intents = catalog(o)['/OutputIntents'] as Json[];
      assert.equal(intents.length, 1, format);
      const intent = dict(o, intents[0]!);
      assert.equal(intent['/S'], '/GTS_PDFA1');
      assert.equal(text(intent['/OutputConditionIdentifier']), 'sRGB IEC61966-2.1');
      assert.equal(dict(o, intent['/DestOutputProfile']!)['/N'], 3);
      const icc = await streamData(o, intent['/DestOutputProfile']!);
      assert.equal(icc.readUInt32BE(0), icc.length, 'the profile header states its own size');
      assert.equal(icc.toString('latin1', 12, 16), 'mntr');
      assert.equal(icc.toString('latin1', 16, 20), 'RGB ');
      assert.equal(icc.toString('latin1', 36, 40), 'acsp');
      const check = await qpdfCheck(bytes.get(format)!);
      assert.equal(check.ok, true, check.out);
    }
  });

  test('trailer /ID: two 16-byte strings in the last trailer, derived from the content (the renderer: same input, same bytes)', async () => {
    for (const format of FORMATS) {
      const id = trailer(outputs.get(format)!)['/ID'] as string[];
      assert.equal(id.length, 2, format);
      for (const part of id) assert.match(part, /^b:[0-9a-f]{32}$/);
    }
    // The renderer: same input, same bytes (a live seal adds a fresh timestamp token, so only the renderer is repeatable).
    const [one, two] = [await renderFinalPdf(inputFor('pades-lt')), await renderFinalPdf(inputFor('pades-lt'))];
    assert.deepEqual(one, two);
    const ids = await Promise.all(
      [one, await renderFinalPdf({ ...inputFor('pades-lt'), completed_at: T0 + 3601 })].map(
        async (pdf, i) => trailer(await objectsOf(pdf, `id${i}`))['/ID'],
      ),
    );
    assert.notDeepEqual(ids[0], ids[1], 'another content, another ID');
  });

  test('fonts: pdffonts lists every font embedded (no standard 14 font anywhere, test watermark included)', async () => {
    const test = await sealedFinalPdf(pki, inputFor('pades-lt', false), 'https://sign.example.test');
    for (const pdf of [...bytes.values(), test]) {
      const fonts = await pdfFonts(pdf);
      assert.ok(fonts.length >= 2);
      for (const font of fonts) assert.equal(font.embedded, true, font.name);
    }
  });

  test('no forbidden features: no JavaScript, actions, encryption, LZW or transfer functions in any object', async () => {
    for (const format of FORMATS) {
      const { stdout } = await run('qpdf', ['--json=2', '--json-key=qpdf', '--json-stream-data=none', outputs.get(format)!.file], {
        maxBuffer: 64 << 20,
      });
      const forbidden = ['/JS', '/JavaScript', '/Encrypt', '/LZWDecode', '/TR', '/TR2', '/AA', '/OpenAction', '/Launch'];
      // External stream data, PostScript and OPI (ISO 19005-3 6.1.7, 6.2.9).
      for (const key of [...forbidden, '/FFilter', '/FDecodeParms', '/PS', '/OPI']) {
        assert.ok(!stdout.includes(`"${key}"`), `${format}: ${key}`);
      }
    }
  });

  test('file structure: a %PDF-1.7 header with a binary comment line, nothing after the last %%EOF but one end-of-line', () => {
    for (const format of FORMATS) {
      const pdf = Buffer.from(bytes.get(format)!);
      assert.equal(pdf.toString('latin1', 0, 9), '%PDF-1.7\n', format);
      assert.equal(pdf[9], 0x25);
      for (const b of pdf.subarray(10, 14)) assert.ok(b > 127, 'four bytes above 127');
      assert.match(pdf.toString('latin1', pdf.length - 7), /%%EOF\r?\n?$/);
    }
  });

  test('annotations: every one printable, not hidden, with a normal appearance stream (the signature widget too)', async () => {
    for (const format of ['pades-t', 'pades-lt']) {
      const o = outputs.get(format)!;
      const annots = Object.values(o.all)
        .map((entry) => entry.value)
        .filter((v): v is Dict => !!v && typeof v === 'object' && !Array.isArray(v) && v['/Type'] === '/Annot');
      assert.ok(annots.length >= 1, format);
      for (const annot of annots) {
        const flags = annot['/F'] as number;
        assert.equal(flags & 4, 4, 'Print');
        assert.equal(flags & (1 | 2 | 32), 0, 'Invisible, Hidden, NoView');
        assert.ok((annot['/AP'] as Dict)['/N'], 'appearance');
      }
    }
  });

  test('associated files: /AF and /EmbeddedFiles list each with relationship, MIME type, size and dates; pdfdetach extracts them', async () => {
    for (const format of FORMATS) {
      const o = outputs.get(format)!;
      const af = catalog(o)['/AF'] as Json[];
      const names = ((catalog(o)['/Names'] as Dict)['/EmbeddedFiles'] as Dict)['/Names'] as Json[];
      const listed = names.filter((_, i) => i % 2 === 0).map(text);
      assert.deepEqual(listed, ['completion-certificate.json', 'evidence-record.json', 'evidence-signature.json'], format);
      assert.deepEqual(new Set(names.filter((_, i) => i % 2 === 1)), new Set(af));
      const dir = await detach(o);
      for (const ref of af) {
        const spec = dict(o, ref);
        assert.equal(spec['/Type'], '/Filespec');
        assert.match(String(spec['/AFRelationship']), /^\/(Data|Supplement)$/);
        const ef = dict(o, (spec['/EF'] as Dict)['/F']!);
        assert.equal(ef['/Subtype'], '/application/json'); // qpdf shows the name decoded (#2F)
        const params = ef['/Params'] as Dict;
        assert.equal(text(params['/ModDate']), 'D:20260701100000Z');
        const content = readFileSync(path.join(dir, text(spec['/UF'])));
        assert.equal(params['/Size'], content.length);
        assert.equal(text(params['/CheckSum']).replace(/^b:/, ''), createHash('md5').update(content).digest('hex'));
        assert.ok(JSON.parse(content.toString('utf8')));
      }
      const certificate = JSON.parse(readFileSync(path.join(dir, 'completion-certificate.json'), 'utf8'));
      assert.equal(certificate.signature_request.reference, 'TWQ-2026-ARCH1');
      assert.equal(certificate.signers[0].email_masked, 'a***@example.com');
    }
  });

  test('embedded evidence record: Ed25519 verifies with openssl, the RFC 3161 token verifies, same record as the stored one but for pdf_sha256', async () => {
    const dir = await detach(outputs.get('pades-lt')!);
    const record = readFileSync(path.join(dir, 'evidence-record.json'));
    const proof = JSON.parse(readFileSync(path.join(dir, 'evidence-signature.json'), 'utf8'));
    assert.equal(proof.signed_file, 'evidence-record.json');
    const signature = Buffer.from(proof.signature, 'base64');
    assert.match(await opensslEd25519Verify(proof.public_key, record, signature), /Signature Verified Successfully/);
    const chain = toPem(pki.tsa.certificate, 'CERTIFICATE') + pki.ca.pem;
    const digest = createHash('sha256').update(record).digest('hex');
    assert.match(await opensslTimestampVerify(Buffer.from(proof.timestamp_token, 'base64'), digest, chain), /Verification: OK/);
    // A changed record no longer verifies (the check is not vacuous).
    const changed = Buffer.from(record.toString('utf8').replace('TWQ-2026-ARCH1', 'TWQ-2026-ARCH2'));
    assert.doesNotMatch(await opensslEd25519Verify(proof.public_key, changed, signature), /Signature Verified Successfully/);
    const embedded = JSON.parse(record.toString('utf8'));
    assert.equal(embedded.document.pdf_sha256, undefined, 'a file cannot hold its own hash');
    const stored = JSON.parse((await buildEvidence(pki, inputFor('pades-lt'), 'f'.repeat(64))).record_raw);
    delete stored.document.pdf_sha256;
    assert.deepEqual(embedded, stored);
  });

  test('signed outputs: pdfsig finds every signature valid over the archival file (its metadata and attachments inside the byte range)', async () => {
    for (const format of ['pades-t', 'pades-lt']) {
      const { stdout } = await run('pdfsig', ['-nocert', outputs.get(format)!.file]);
      assert.match(stdout, /Signature Validation: Signature is Valid\./, format);
      assert.doesNotMatch(stdout, /Signature is Invalid|Digest Mismatch/);
    }
  });

  test('PDFBox Preflight: every format, live and test, breaks no PDF/A-1b rule that PDF/A-3b keeps', async () => {
    for (const livemode of [true, false]) {
      for (const format of FORMATS) {
        const pdf = livemode ? bytes.get(format)! : await sealedFinalPdf(pki, inputFor(format, false), 'https://sign.example.test');
        const report = await preflight(pdf);
        assert.deepEqual(beyondPdfA3(report.errors), [], `${format} (${livemode ? 'live' : 'test'}):\n${report.output}`);
        // The relaxed rules it does report are PDF/A-3 features this file uses: the attached evidence at least.
        assert.ok(
          report.errors.some((e) => e.code === '1.4.7'),
          `${format}: the embedded files were seen`,
        );
      }
    }
  });

  test('PDFBox Preflight has teeth: a file with an unembedded standard font and no metadata fails beyond the PDF/A-3 relaxations', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('Not archival', { font: await doc.embedFont(StandardFonts.Helvetica) });
    const beyond = beyondPdfA3((await preflight(await doc.save())).errors);
    assert.ok(
      beyond.some((e) => e.code.startsWith('3.')),
      `a font error: ${JSON.stringify(beyond)}`,
    );
    assert.ok(
      beyond.some((e) => e.code.startsWith('7.') || e.code.startsWith('6.2')),
      `a metadata or output intent error: ${JSON.stringify(beyond)}`,
    );
    assert.ok(PDF_A3_RELAXED.every((r) => r.why.length > 0));
  });

  test('test requests: only the certificate data is attached (no evidence record, as the API keeps none)', async () => {
    const o = await objectsOf(await sealedFinalPdf(pki, inputFor('platform-evidence', false), 'x'), 'test-mode');
    const names = ((catalog(o)['/Names'] as Dict)['/EmbeddedFiles'] as Dict)['/Names'] as Json[];
    assert.deepEqual(names.filter((_, i) => i % 2 === 0).map(text), ['completion-certificate.json']);
  });

  test('qes document (rendered before the tokens sign): PDF/A-3b without dates yet, certificate data with unknown times as null', async () => {
    const input = { ...inputFor('pades-lt'), legal_level: 'qes' as const, reference: '', completed_at: Number.NaN };
    input.signers = [{ ...input.signers[0]!, signed_at: Number.NaN }];
    const o = await objectsOf(await renderFinalPdf(input), 'qes');
    const xml = (await streamData(o, catalog(o)['/Metadata']!)).toString('utf8');
    assert.match(xml, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.doesNotMatch(xml, /CreateDate/);
    assert.equal(dict(o, trailer(o)['/Info']!)['/CreationDate'], undefined);
    const names = ((catalog(o)['/Names'] as Dict)['/EmbeddedFiles'] as Dict)['/Names'] as Json[];
    assert.deepEqual(names.filter((_, i) => i % 2 === 0).map(text), ['completion-certificate.json']);
    const data = JSON.parse(readFileSync(path.join(await detach(o), 'completion-certificate.json'), 'utf8'));
    assert.equal(data.signature_request.completed_at, null);
    assert.equal(data.signers[0].signed_at, null);
    // The file's /ModDate (PDF/A-3 requires one) is the last event the data records.
    const spec = dict(o, (catalog(o)['/AF'] as Json[])[0]!);
    const params = dict(o, (spec['/EF'] as Dict)['/F']!)['/Params'] as Dict;
    assert.equal(text(params['/ModDate']), 'D:20260701093000Z');
  });
});
