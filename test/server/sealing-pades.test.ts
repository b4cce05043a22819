/**
 * PAdES baseline B-T and B-LT (server/src/sealing/pades) checked by real verifiers on real output:
 * `qpdf --check`, poppler's `pdfsig` with an NSS database trusting the fixture root (its exit code
 * is 0 even when a signature is broken, so its output is read), `openssl cms -verify` on the CMS
 * and the bytes the ByteRange covers (both taken from the file here), `openssl ts -verify` on the
 * signature-time-stamp token, and pkijs for the CMS structure. The PKI (CAs, seal, TSA, CRLs, OCSP)
 * comes from the openssl CLI (test/support/pkiFixture.ts), not from the server's PKI code.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as asn1js from 'asn1js';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFString, decodePDFRawStream } from 'pdf-lib';
import * as pkijs from 'pkijs';
import {
  PadesError,
  appendDss,
  appendSignature,
  buildSignedAttributes,
  completePades,
  completePadesFromCms,
  preparePades,
  signPades,
  type PreparedPades,
} from '../../server/src/sealing/pades/index.js';
import { assembleCms } from '../../server/src/sealing/pades/signature.js';
import { embedCms } from '../../server/src/sealing/pades/placeholder.js';
import { createPkiFixture, makeTestPdf, type PkiFixture } from '../support/pkiFixture.js';

const OID = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
};
const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

interface EmbeddedSignature {
  byteRange: [number, number, number, number];
  cms: Uint8Array;
  signed: Uint8Array;
}

/** Every filled ByteRange in the file, with its CMS (padding cut after the DER) and signed bytes. */
function signaturesOf(pdf: Uint8Array): EmbeddedSignature[] {
  const text = Buffer.from(pdf).toString('latin1');
  const out: EmbeddedSignature[] = [];
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const byteRange = [1, 2, 3, 4].map((i) => Number(match[i])) as [number, number, number, number];
    const [a, b, c, d] = byteRange;
    const hex = text.slice(b + 1, c - 1);
    const padded = Buffer.from(hex, 'hex');
    const parsed = asn1js.fromBER(padded);
    assert.notEqual(parsed.offset, -1, 'the /Contents hex string holds DER');
    const cms = new Uint8Array(padded.subarray(0, parsed.offset));
    const signed = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
    out.push({ byteRange, cms, signed: new Uint8Array(signed) });
  }
  return out;
}

function qpdfCheck(file: string): { status: number | null; output: string } {
  const result = spawnSync('qpdf', ['--check', file], { encoding: 'latin1' });
  return { status: result.status, output: result.stdout + result.stderr };
}

/**
 * pdfsig's report split per signature ("Signature #1:" …). Not with -no-ocsp: poppler 22.12 then
 * reports "Unknown issue with Certificate" for every chain; the fixture certificates carry no AIA,
 * so there is nothing to fetch anyway.
 */
function pdfsig(file: string, nssDir: string): { raw: string; signatures: string[] } {
  const result = spawnSync('pdfsig', ['-nssdir', nssDir, file], { encoding: 'utf8' });
  const raw = result.stdout + result.stderr;
  return { raw, signatures: raw.split(/^Signature #\d+:$/m).slice(1) };
}

function openssl(args: string[]): { status: number | null; output: string } {
  const result = spawnSync('openssl', args, { encoding: 'latin1' });
  return { status: result.status, output: result.stdout + result.stderr };
}

function signerInfoOf(cms: Uint8Array): pkijs.SignerInfo {
  const contentInfo = pkijs.ContentInfo.fromBER(cms);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  const signerInfo = signedData.signerInfos[0];
  assert.ok(signerInfo);
  return signerInfo;
}

/** The signature dictionaries of the AcroForm's fields, by field name. */
async function signatureDictionaries(pdf: Uint8Array): Promise<Map<string, { widget: PDFDict; sig: PDFDict }>> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const out = new Map<string, { widget: PDFDict; sig: PDFDict }>();
  for (let i = 0; i < fields.size(); i += 1) {
    const widget = fields.lookup(i, PDFDict);
    const name = widget.lookup(PDFName.of('T'), PDFString, PDFHexString).decodeText();
    out.set(name, { widget, sig: widget.lookup(PDFName.of('V'), PDFDict) });
  }
  return out;
}

describe('PAdES B-T and B-LT', () => {
  let ec: PkiFixture;
  let rsa: PkiFixture;
  let work: string;
  let twoPages: Uint8Array;
  /** Now, to the second: verifiers check the certificates at the signing time (/M), so not before the fixture's notBefore. */
  let SIGNING_TIME: Date;
  const write = (name: string, bytes: Uint8Array): string => {
    const file = path.join(work, name);
    writeFileSync(file, bytes);
    return file;
  };

  before(async () => {
    ec = createPkiFixture('ec');
    rsa = createPkiFixture('rsa');
    // One NSS database trusting both roots (the appended second signature comes from the RSA PKI).
    execFileSync('certutil', ['-A', '-d', ec.nssDir, '-n', 'tawqi-test-root-rsa', '-t', 'CT,C,C', '-i', rsa.caFile]);
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-pades-'));
    twoPages = await makeTestPdf(2);
    SIGNING_TIME = new Date(Math.ceil(Date.now() / 1000) * 1000);
  });
  after(() => {
    ec.close();
    rsa.close();
    rmSync(work, { recursive: true, force: true });
  });

  for (const key of ['ec', 'rsa'] as const) {
    test(`B-T with the ${key.toUpperCase()} seal: qpdf, pdfsig, openssl cms and openssl ts accept it`, async () => {
      const pki = key === 'ec' ? ec : rsa;
      const signedPdf = await signPades(twoPages, {
        signer: pki.signer,
        timestamp: pki.timestamp,
        level: 'B-T',
        signingTime: SIGNING_TIME,
        reason: 'Sealed by Tawqi',
        name: 'Tawqi — توقيع',
        location: 'Riyadh',
      });
      const file = write(`bt-${key}.pdf`, signedPdf);

      const check = qpdfCheck(file);
      assert.equal(check.status, 0, check.output);
      assert.match(check.output, /No syntax or stream encoding errors found/);

      const report = pdfsig(file, ec.nssDir);
      assert.equal(report.signatures.length, 1, report.raw);
      const first = report.signatures[0] ?? '';
      assert.match(first, /Signature Validation: Signature is Valid\./, report.raw);
      assert.match(first, /Certificate Validation: Certificate is Trusted\./, report.raw);
      assert.match(first, /Signature Type: ETSI\.CAdES\.detached/);
      assert.match(first, /Signing Hash Algorithm: SHA-256/);
      assert.match(first, /Total document signed/);
      assert.match(first, new RegExp(`Signer Certificate Common Name: Tawqi Test Seal \\(${key.toUpperCase()}\\)`));

      const [signature] = signaturesOf(signedPdf);
      assert.ok(signature);
      assert.equal(signature.byteRange[2] + signature.byteRange[3], signedPdf.byteLength, 'the ByteRange covers the whole file');
      const cmsFile = write(`bt-${key}.p7s`, signature.cms);
      const contentFile = write(`bt-${key}.signed.bin`, signature.signed);
      const cmsVerify = openssl([
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        cmsFile,
        '-content',
        contentFile,
        '-CAfile',
        pki.caFile,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ]);
      assert.equal(cmsVerify.status, 0, cmsVerify.output);
      assert.match(cmsVerify.output, /Verification successful/);

      // The signature-time-stamp token: over SHA-256 of the SignerInfo's signature value.
      const signerInfo = signerInfoOf(signature.cms);
      const stamp = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === OID.signatureTimeStampToken);
      assert.ok(stamp, 'signature-time-stamp unsigned attribute');
      const token = new Uint8Array(stamp.values[0].toBER(false));
      const signatureDigest = sha256(signerInfo.signature.valueBlock.valueHexView);
      const tokenSignedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(token).content });
      const eContent = tokenSignedData.encapContentInfo.eContent;
      assert.ok(eContent);
      const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
      assert.deepEqual(Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView), signatureDigest);
      const tokenFile = write(`bt-${key}.tst`, token);
      const tsVerify = openssl([
        'ts',
        '-verify',
        '-token_in',
        '-in',
        tokenFile,
        '-digest',
        signatureDigest.toString('hex'),
        '-CAfile',
        pki.caFile,
        '-untrusted',
        pki.untrustedFile,
      ]);
      assert.equal(tsVerify.status, 0, tsVerify.output);
      assert.match(tsVerify.output, /Verification: OK/);
    });
  }

  test('the CMS: exactly content-type, message-digest, signing-certificate-v2 in DER order, no signing-time; chain included', async () => {
    const signedPdf = await signPades(twoPages, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME });
    const [signature] = signaturesOf(signedPdf);
    assert.ok(signature);
    const contentInfo = pkijs.ContentInfo.fromBER(signature.cms);
    assert.equal(contentInfo.contentType, '1.2.840.113549.1.7.2');
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    assert.equal(signedData.encapContentInfo.eContent, undefined, 'detached');
    assert.equal(signedData.encapContentInfo.eContentType, '1.2.840.113549.1.7.1');
    assert.deepEqual(
      signedData.digestAlgorithms.map((a) => a.algorithmId),
      ['2.16.840.1.101.3.4.2.1'],
    );
    const certificates = (signedData.certificates ?? []).map((c) => Buffer.from((c as pkijs.Certificate).toSchema().toBER(false)));
    assert.deepEqual(
      certificates,
      [ec.seal.der, ec.issuingCa.der, ec.root.der].map((d) => Buffer.from(d)),
    );

    const signerInfo = signedData.signerInfos[0];
    assert.ok(signerInfo?.signedAttrs);
    assert.equal(signerInfo.digestAlgorithm.algorithmId, '2.16.840.1.101.3.4.2.1');
    assert.equal(signerInfo.signatureAlgorithm.algorithmId, '1.2.840.10045.4.3.2');
    const types = signerInfo.signedAttrs.attributes.map((a) => a.type);
    assert.deepEqual([...types].sort(), [OID.contentType, OID.messageDigest, OID.signingCertificateV2].sort());
    assert.ok(!types.includes(OID.signingTime));
    // SET OF in DER: the encodings of the elements ascend.
    const encoded = signerInfo.signedAttrs.attributes.map((a) => Buffer.from(a.toSchema().toBER(false)));
    for (let i = 1; i < encoded.length; i += 1) assert.ok(Buffer.compare(encoded[i - 1] as Buffer, encoded[i] as Buffer) < 0, 'DER order');
    // What was signed is the SET OF (0x31) with these bytes.
    assert.equal(new Uint8Array(signerInfo.signedAttrs.encodedValue)[0], 0x31);

    const digest = signerInfo.signedAttrs.attributes.find((a) => a.type === OID.messageDigest)?.values[0] as asn1js.OctetString;
    assert.deepEqual(Buffer.from(digest.getValue()), sha256(signature.signed));
    // signing-certificate-v2: certs[0].certHash = SHA-256 of the seal certificate (hashAlgorithm omitted = SHA-256).
    const scv2 = signerInfo.signedAttrs.attributes.find((a) => a.type === OID.signingCertificateV2)?.values[0] as asn1js.Sequence;
    const essCertId = (scv2.valueBlock.value[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
    const certHash = essCertId.valueBlock.value[0] as asn1js.OctetString;
    assert.deepEqual(Buffer.from(certHash.getValue()), sha256(ec.seal.der));
    assert.equal(essCertId.valueBlock.value.length, 2, 'certHash and issuerSerial');

    assert.deepEqual(
      signerInfo.unsignedAttrs?.attributes.map((a) => a.type),
      [OID.signatureTimeStampToken],
    );
  });

  test('the signature dictionary: /Type /Sig, Adobe.PPKLite, ETSI.CAdES.detached, /M, invisible widget, Unicode /Name', async () => {
    const signedPdf = await signPades(twoPages, {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-T',
      signingTime: SIGNING_TIME,
      name: 'Tawqi — توقيع',
      reason: 'Sealed (final)',
    });
    const fields = await signatureDictionaries(signedPdf);
    const field = fields.get('Signature1');
    assert.ok(field);
    const { sig, widget } = field;
    assert.equal(sig.get(PDFName.of('Type')), PDFName.of('Sig'));
    assert.equal(sig.get(PDFName.of('Filter')), PDFName.of('Adobe.PPKLite'));
    assert.equal(sig.get(PDFName.of('SubFilter')), PDFName.of('ETSI.CAdES.detached'));
    const m = SIGNING_TIME.toISOString().replace(/[-:T]/g, '').slice(0, 14);
    assert.equal(sig.lookup(PDFName.of('M'), PDFString).asString(), `D:${m}Z`);
    assert.equal(sig.lookup(PDFName.of('Name'), PDFString, PDFHexString).decodeText(), 'Tawqi — توقيع');
    assert.equal(sig.lookup(PDFName.of('Reason'), PDFString, PDFHexString).decodeText(), 'Sealed (final)');
    assert.equal(widget.get(PDFName.of('FT')), PDFName.of('Sig'));
    assert.deepEqual(widget.lookup(PDFName.of('Rect'), PDFArray).asArray().map(String), ['0', '0', '0', '0']);
    // The CMS room is at least 16 KB.
    const [signature] = signaturesOf(signedPdf);
    assert.ok(signature);
    assert.ok((signature.byteRange[2] - signature.byteRange[1] - 2) / 2 >= 16384);
  });

  test('B-LT: a /DSS with the certificates, CRLs and OCSP response in an incremental update; the signature still verifies', async () => {
    const signedPdf = await signPades(twoPages, {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-LT',
      revocation: ec.revocation,
      signingTime: SIGNING_TIME,
    });
    const file = write('lt-ec.pdf', signedPdf);
    const check = qpdfCheck(file);
    assert.equal(check.status, 0, check.output);
    assert.match(check.output, /No syntax or stream encoding errors found/);

    const report = pdfsig(file, ec.nssDir);
    assert.equal(report.signatures.length, 1, report.raw);
    assert.match(report.signatures[0] ?? '', /Signature Validation: Signature is Valid\./, report.raw);
    assert.match(report.signatures[0] ?? '', /Certificate Validation: Certificate is Trusted\./, report.raw);
    // The DSS revision comes after the signed bytes.
    assert.match(report.signatures[0] ?? '', /Not total document signed/);

    // The signed revision ends where the ByteRange ends; the DSS revision follows, chained with /Prev.
    const [signature] = signaturesOf(signedPdf);
    assert.ok(signature);
    const signedEnd = signature.byteRange[2] + signature.byteRange[3];
    assert.ok(signedEnd < signedPdf.byteLength);
    assert.match(Buffer.from(signedPdf.subarray(signedEnd - 7, signedEnd)).toString('latin1'), /%%EOF\s*$/);
    const cmsVerify = openssl([
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      write('lt-ec.p7s', signature.cms),
      '-content',
      write('lt-ec.bin', signature.signed),
      '-CAfile',
      ec.caFile,
      '-purpose',
      'any',
      '-out',
      '/dev/null',
    ]);
    assert.match(cmsVerify.output, /Verification successful/);

    const text = Buffer.from(signedPdf).toString('latin1');
    const startxrefs = [...text.matchAll(/startxref\s+(\d+)/g)].map((m) => Number(m[1]));
    assert.equal(startxrefs.length, 2);
    const trailer = execFileSync('qpdf', ['--show-object=trailer', file], { encoding: 'latin1' });
    assert.match(trailer, new RegExp(`/Prev ${startxrefs[0]}\\b`));
    const xref = execFileSync('qpdf', ['--show-xref', file], { encoding: 'latin1' });
    assert.match(xref, /uncompressed; offset = /);

    // The DSS in the last revision: the catalog's /DSS with /Certs, /CRLs, /OCSPs of streams.
    const doc = await PDFDocument.load(signedPdf, { updateMetadata: false });
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    const streams = (key: string): Buffer[] =>
      dss
        .lookup(PDFName.of(key), PDFArray)
        .asArray()
        .map((ref) => {
          assert.ok(ref instanceof PDFRef, `${key} holds references to streams`);
          const stream = doc.context.lookup(ref);
          assert.ok(stream instanceof PDFRawStream);
          return Buffer.from(decodePDFRawStream(stream).decode());
        });
    const certs = streams('Certs');
    for (const cert of [ec.seal, ec.issuingCa, ec.root, ec.tsa, ec.ocspResponder]) {
      assert.ok(
        certs.some((c) => c.equals(cert.der)),
        'DSS certificate present',
      );
    }
    assert.deepEqual(
      streams('CRLs'),
      ec.revocation.crls.map((c) => Buffer.from(c)),
    );
    assert.deepEqual(
      streams('OCSPs'),
      ec.revocation.ocspResponses.map((o) => Buffer.from(o)),
    );
    // The OCSP response in the DSS is a real one: openssl reads it and finds the seal "good".
    const ocspText = openssl(['ocsp', '-respin', write('dss.ocsp', streams('OCSPs')[0] ?? new Uint8Array()), '-resp_text', '-noverify']);
    assert.match(ocspText.output, /Cert Status: good/);
  });

  test('appendDss keeps every byte of the signed file and chains a new revision', async () => {
    const bt = await signPades(twoPages, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME });
    const lt = await appendDss(bt, ec.revocation);
    assert.deepEqual(Buffer.from(lt.subarray(0, bt.byteLength)), Buffer.from(bt));
    const check = qpdfCheck(write('append-dss.pdf', lt));
    assert.equal(check.status, 0, check.output);
    // A second extension adds to the same /DSS.
    const again = await appendDss(lt, { certificates: [], crls: [], ocspResponses: ec.revocation.ocspResponses });
    const file = write('append-dss-2.pdf', again);
    assert.equal(qpdfCheck(file).status, 0);
    const doc = await PDFDocument.load(again, { updateMetadata: false });
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    assert.equal(dss.lookup(PDFName.of('OCSPs'), PDFArray).size(), 2);
    assert.match(pdfsig(file, ec.nssDir).signatures[0] ?? '', /Signature is Valid\./);
  });

  test('a flipped byte inside the signed range: pdfsig reports the digest mismatch', async () => {
    const signedPdf = await signPades(twoPages, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME });
    const tampered = Buffer.from(signedPdf);
    // A byte of the binary comment on the second line: the file still parses, the digest does not match.
    const at = tampered.indexOf('\n%') + 2;
    assert.ok(at < (signaturesOf(signedPdf)[0]?.byteRange[1] ?? 0));
    tampered[at] = (tampered[at] ?? 0) ^ 0x01;
    const report = pdfsig(write('tampered.pdf', tampered), ec.nssDir);
    assert.match(report.signatures[0] ?? '', /Signature Validation: Digest Mismatch\./, report.raw);
    assert.doesNotMatch(report.raw, /Signature is Valid/);
  });

  test('split API: an external signer (raw r‖s as PKCS#11 returns) signs the prepared signed attributes later', async () => {
    const prepared = await preparePades(twoPages, {
      certificate: ec.signer.certificate,
      chain: ec.signer.chain,
      keyAlgorithm: 'ECDSA-P256',
      signingTime: SIGNING_TIME,
      name: 'Qualified signer',
    });
    assert.equal(prepared.signedAttributesDer[0], 0x31);
    assert.deepEqual(
      Buffer.from(prepared.byteRangeDigest),
      sha256(
        Buffer.concat([
          prepared.pdfWithPlaceholder.subarray(0, prepared.byteRange[1]),
          prepared.pdfWithPlaceholder.subarray(prepared.byteRange[2]),
        ]),
      ),
    );
    // Stored and read back between the two halves.
    const stored: PreparedPades = structuredClone(prepared);
    const key = createPrivateKey(readFileSync(ec.seal.keyFile));
    const raw = new Uint8Array(sign('sha256', stored.signedAttributesDer, { key, dsaEncoding: 'ieee-p1363' }));
    assert.equal(raw.byteLength, 64);

    const signedPdf = await completePades(stored, raw, { timestamp: ec.timestamp, level: 'B-LT', revocation: ec.revocation });
    const file = write('split.pdf', signedPdf);
    assert.equal(qpdfCheck(file).status, 0);
    const report = pdfsig(file, ec.nssDir);
    assert.match(report.signatures[0] ?? '', /Signature is Valid\./, report.raw);
    assert.match(report.signatures[0] ?? '', /Certificate is Trusted\./, report.raw);

    // A signature by another key is refused before anything is embedded.
    const otherKey = createPrivateKey(readFileSync(rsa.seal.keyFile));
    await assert.rejects(
      completePades(stored, new Uint8Array(sign('sha256', stored.signedAttributesDer, otherKey)), {
        timestamp: ec.timestamp,
        level: 'B-T',
      }),
      (error: unknown) => error instanceof PadesError && error.code === 'invalid_signature_value',
    );
    // A prepared PDF whose bytes changed no longer matches its signed attributes.
    const changed = { ...stored, pdfWithPlaceholder: Buffer.from(stored.pdfWithPlaceholder).fill(0x20, 20, 21) };
    await assert.rejects(
      completePades(changed, raw, { timestamp: ec.timestamp, level: 'B-T' }),
      (error: unknown) => error instanceof PadesError && error.code === 'digest_mismatch',
    );
  });

  test('split API: a detached CMS made elsewhere (the agent) gets the timestamp and is embedded', async () => {
    const prepared = await preparePades(twoPages, {
      certificate: rsa.signer.certificate,
      chain: [],
      keyAlgorithm: 'RSA',
      signingTime: SIGNING_TIME,
    });
    const signature = await rsa.signer.sign(prepared.signedAttributesDer);
    const { cms: agentCms } = await assembleCms({
      certificate: rsa.signer.certificate,
      chain: [],
      keyAlgorithm: 'RSA',
      signedAttributesDer: prepared.signedAttributesDer,
      signatureValue: signature,
    });
    const signedPdf = await completePadesFromCms({ ...prepared, chain: rsa.signer.chain }, agentCms, {
      timestamp: rsa.timestamp,
      level: 'B-T',
    });
    const report = pdfsig(write('from-cms.pdf', signedPdf), ec.nssDir);
    assert.match(report.signatures[0] ?? '', /Signature is Valid\./, report.raw);
    assert.match(report.signatures[0] ?? '', /Certificate is Trusted\./, report.raw);
    const [embedded] = signaturesOf(signedPdf);
    assert.ok(
      signerInfoOf(embedded?.cms ?? new Uint8Array()).unsignedAttrs?.attributes.some((a) => a.type === OID.signatureTimeStampToken),
    );

    // Signed attributes naming another certificate in signing-certificate-v2 are refused.
    const foreignAttributes = buildSignedAttributes(ec.signer.certificate, prepared.byteRangeDigest);
    const { cms: foreignCms } = await assembleCms({
      certificate: rsa.signer.certificate,
      chain: [],
      keyAlgorithm: 'RSA',
      signedAttributesDer: foreignAttributes,
      signatureValue: await rsa.signer.sign(foreignAttributes),
    });
    await assert.rejects(
      completePadesFromCms(prepared, foreignCms, { timestamp: rsa.timestamp, level: 'B-T' }),
      (error: unknown) => error instanceof PadesError && error.code === 'invalid_cms' && /signing-certificate-v2/.test(error.message),
    );
    // A CMS over another document is refused.
    const other = await preparePades(await makeTestPdf(1), {
      certificate: rsa.signer.certificate,
      chain: [],
      keyAlgorithm: 'RSA',
      signingTime: SIGNING_TIME,
    });
    await assert.rejects(
      completePadesFromCms(other, agentCms, { timestamp: rsa.timestamp, level: 'B-T' }),
      (error: unknown) => error instanceof PadesError && error.code === 'digest_mismatch',
    );
  });

  test('a second signature is appended after a B-LT one; both verify, the first revision is untouched', async () => {
    const first = await signPades(twoPages, {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-LT',
      revocation: ec.revocation,
      signingTime: SIGNING_TIME,
    });
    const second = await appendSignature(first, {
      signer: rsa.signer,
      timestamp: rsa.timestamp,
      level: 'B-LT',
      revocation: rsa.revocation,
      signingTime: new Date(SIGNING_TIME.getTime() + 60_000),
      name: 'Second signer',
      pageIndex: 1,
    });
    assert.deepEqual(Buffer.from(second.subarray(0, first.byteLength)), Buffer.from(first));
    const file = write('two-signatures.pdf', second);
    const check = qpdfCheck(file);
    assert.equal(check.status, 0, check.output);

    const report = pdfsig(file, ec.nssDir);
    assert.equal(report.signatures.length, 2, report.raw);
    const [one, two] = report.signatures;
    assert.match(one ?? '', /Signature Field Name: Signature1/);
    assert.match(one ?? '', /Signature is Valid\./, report.raw);
    assert.match(one ?? '', /Certificate is Trusted\./, report.raw);
    assert.match(two ?? '', /Signature Field Name: Signature2/);
    assert.match(two ?? '', /Signer Certificate Common Name: Tawqi Test Seal \(RSA\)/);
    assert.match(two ?? '', /Signature is Valid\./, report.raw);
    assert.match(two ?? '', /Certificate is Trusted\./, report.raw);
    assert.match(two ?? '', /Signature Type: ETSI\.CAdES\.detached/);

    // Four revisions: original+signature 1, DSS, signature 2, DSS.
    assert.equal(
      [
        ...Buffer.from(second)
          .toString('latin1')
          .matchAll(/startxref/g),
      ].length,
      4,
    );
    const fields = await signatureDictionaries(second);
    assert.deepEqual([...fields.keys()], ['Signature1', 'Signature2']);
    const doc = await PDFDocument.load(second, { updateMetadata: false });
    assert.equal(doc.catalog.lookup(PDFName.of('DSS'), PDFDict).lookup(PDFName.of('OCSPs'), PDFArray).size(), 2);
    // Signing an already signed PDF without saying so also appends (never rewrites).
    const third = await signPades(second, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME });
    assert.deepEqual(Buffer.from(third.subarray(0, second.byteLength)), Buffer.from(second));
    assert.equal(pdfsig(write('three.pdf', third), ec.nssDir).signatures.filter((s) => /Signature is Valid\./.test(s)).length, 3);
  });

  test('incremental signature on a PDF with object streams and a cross-reference stream', async () => {
    assert.match(Buffer.from(twoPages).toString('latin1'), /\/Type \/XRef/, 'pdf-lib wrote a cross-reference stream');
    const bt = await signPades(twoPages, {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-LT',
      revocation: ec.revocation,
      signingTime: SIGNING_TIME,
      mode: 'incremental',
    });
    assert.deepEqual(Buffer.from(bt.subarray(0, twoPages.byteLength)), Buffer.from(twoPages));
    const file = write('xref-stream.pdf', bt);
    const check = qpdfCheck(file);
    assert.equal(check.status, 0, check.output);
    assert.equal(
      [
        ...Buffer.from(bt)
          .toString('latin1')
          .matchAll(/\/Type \/XRef/g),
      ].length,
      3,
      'each update wrote a cross-reference stream',
    );
    const report = pdfsig(file, ec.nssDir);
    assert.match(report.signatures[0] ?? '', /Signature is Valid\./, report.raw);
    assert.match(report.signatures[0] ?? '', /Certificate is Trusted\./, report.raw);
    const classic = await makeTestPdf(1, { classicXref: true });
    const signedClassic = await signPades(classic, {
      signer: rsa.signer,
      timestamp: rsa.timestamp,
      level: 'B-T',
      signingTime: SIGNING_TIME,
      mode: 'incremental',
    });
    const classicFile = write('classic-incremental.pdf', signedClassic);
    assert.equal(qpdfCheck(classicFile).status, 0);
    assert.match(pdfsig(classicFile, ec.nssDir).signatures[0] ?? '', /Signature is Valid\./);
  });

  test('failures are clear: small placeholder, CMS too large, B-LT without revocation data', async () => {
    await assert.rejects(
      signPades(twoPages, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME, placeholderBytes: 8192 }),
      (error: unknown) => error instanceof PadesError && error.code === 'placeholder_too_small',
    );
    const prepared = await preparePades(twoPages, {
      certificate: ec.signer.certificate,
      chain: [],
      keyAlgorithm: 'ECDSA-P256',
      signingTime: SIGNING_TIME,
    });
    assert.throws(
      () => embedCms(prepared.pdfWithPlaceholder, prepared.byteRange, new Uint8Array(16385)),
      (error: unknown) =>
        error instanceof PadesError &&
        error.code === 'placeholder_too_small' &&
        /16385 bytes but the placeholder holds 16384/.test(error.message),
    );
    const stampsBefore = ec.stamps();
    await assert.rejects(
      signPades(twoPages, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-LT', signingTime: SIGNING_TIME }),
      (error: unknown) => error instanceof PadesError && error.code === 'missing_revocation',
    );
    assert.equal(ec.stamps(), stampsBefore, 'no timestamp is spent on a request that cannot finish');
    await assert.rejects(
      signPades(twoPages, {
        signer: ec.signer,
        timestamp: async () => new Uint8Array([0x30, 0x00]),
        level: 'B-T',
        signingTime: SIGNING_TIME,
      }),
      (error: unknown) => error instanceof PadesError && error.code === 'invalid_timestamp',
    );
  });
});
