/**
 * The signature validator (server/src/sealing/validation) on real signed PDFs: PAdES B-T and B-LT
 * and a second signer made with our signer and an openssl PKI and TSA (test/support/pkiFixture.ts),
 * the same PDFs tampered with (a flipped byte, a changed page, an added annotation), the same PDF
 * checked against another root (untrusted), an unsigned PDF, and a PDF signed outside the project:
 * @signpdf/placeholder-pdf-lib + @signpdf/signpdf with `openssl cms -sign` as the signer.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as asn1js from 'asn1js';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString, type PDFRef } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { Signer } from '@signpdf/utils';
import { appendSignature, completePadesFromCms, preparePades, signPades } from '../../server/src/sealing/pades/index.js';
import { appendDocumentTimestamp } from '../../server/src/sealing/pades/documentTimestamp.js';
import { IncrementalUpdate } from '../../server/src/sealing/pades/incremental.js';
import { validatePdf, ValidationInputError, type ValidationReport } from '../../server/src/sealing/validation/index.js';
import {
  createPkiFixture,
  fixtureCrl,
  fixtureTsa,
  forgeIssuingCa,
  makeTestPdf,
  sealOcspResponse,
  tsaWithoutCertificate,
  type PkiFixture,
} from '../support/pkiFixture.js';
import { SIGNING_EXT, agentCms, issueLeaf } from '../support/qesSoftSigner.js';

const SIGNING_TIME = new Date();
const NOW = new Date(Date.now() + 60_000);

describe('PDF signature validation', () => {
  let ec: PkiFixture;
  let other: PkiFixture;
  let unsigned: Uint8Array;
  let bt: Uint8Array;
  let blt: Uint8Array;
  const validate = (pdf: Uint8Array, anchors = [ec.root.der], lang: 'ar' | 'en' = 'en'): Promise<ValidationReport> =>
    validatePdf(pdf, { trustAnchors: anchors, now: NOW, lang });

  before(async () => {
    ec = createPkiFixture('ec');
    other = createPkiFixture('rsa');
    unsigned = await makeTestPdf(2);
    bt = await signPades(unsigned, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME, name: 'Seal' });
    blt = await signPades(unsigned, {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-LT',
      revocation: ec.revocation,
      signingTime: SIGNING_TIME,
    });
  });
  after(() => {
    ec.close();
    other.close();
  });

  test('an unsigned PDF: no signature found, indeterminate', async () => {
    const report = await validate(unsigned);
    assert.equal(report.signatures.length, 0);
    assert.equal(report.indication, 'INDETERMINATE');
    assert.equal(report.subIndication, 'NO_SIGNATURE_FOUND');
  });

  test('PAdES B-T: total-passed at B-T, signer, chain to the root, time from the timestamp', async () => {
    const report = await validate(bt);
    assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report, null, 2));
    const [sig] = report.signatures;
    assert.equal(sig?.kind, 'signature');
    assert.equal(sig.level, 'B-T');
    assert.equal(sig.fieldName, 'Signature1');
    assert.match(sig.signer ?? '', /Seal/i);
    assert.deepEqual(sig.integrity, { byteRangeCoversRevision: true, digestMatches: true, signatureValid: true });
    assert.ok(sig.chain?.trustAnchor?.includes('Root'), sig.chain?.trustAnchor ?? 'no anchor');
    assert.equal(sig.chain?.certificates.at(-1)?.sha256.length, 64);
    assert.ok(sig.timestamp?.imprintMatches && sig.timestamp.signatureValid);
    assert.ok(Math.abs(new Date(sig.signingTime!).getTime() - SIGNING_TIME.getTime()) < 120_000);
    assert.equal(sig.claimedTime?.slice(0, 19), SIGNING_TIME.toISOString().slice(0, 19));
    assert.equal(sig.revocation.dssCrls + sig.revocation.dssOcsps, 0);
  });

  test('PAdES B-LT: level B-LT with the DSS revocation data counted, the DSS update allowed', async () => {
    const report = await validate(blt);
    assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures[0], null, 2));
    const [sig] = report.signatures;
    assert.equal(sig?.level, 'B-LT');
    assert.equal(report.revisions, 2);
    assert.equal(sig.modifications.laterRevisions, 1);
    assert.deepEqual(sig.modifications.disallowed, []);
    assert.ok(sig.revocation.dssCrls >= 1 && sig.revocation.dssOcsps >= 1);
    // The fixture's CRL and OCSP response are its issuing CA's and delegated responder's: none ignored.
    assert.deepEqual([sig.revocation.ignoredCrls, sig.revocation.ignoredOcsps], [0, 0]);
  });

  test('PAdES B-LTA: a document timestamp over the DSS raises the signature to B-LTA and passes itself; one over a B-T file does not', async () => {
    const blta = await appendDocumentTimestamp(blt, ec.timestamp);
    const report = await validate(blta);
    assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures, null, 2));
    assert.deepEqual(
      report.signatures.map((s) => [s.kind, s.level, s.indication]),
      [
        ['signature', 'B-LTA', 'TOTAL-PASSED'],
        ['document-timestamp', report.signatures[1]?.level, 'TOTAL-PASSED'],
      ],
    );
    assert.deepEqual(report.signatures[0]?.modifications.disallowed, [], 'the DSS and the document timestamp are allowed after signing');
    // Without a DSS before it, a document timestamp does not make the signature long-term.
    const overBt = await validate(await appendDocumentTimestamp(bt, ec.timestamp));
    assert.equal(overBt.signatures[0]?.level, 'B-T');
  });

  test('a second signature in an incremental update: both pass, the first allows the second field', async () => {
    const two = await appendSignature(blt, { signer: ec.signer, timestamp: ec.timestamp, level: 'B-T', signingTime: SIGNING_TIME });
    const report = await validate(two);
    assert.equal(report.signatures.length, 2);
    assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures, null, 2));
    assert.deepEqual(
      report.signatures.map((s) => [s.fieldName, s.revision]),
      [
        ['Signature1', 1],
        ['Signature2', 3],
      ],
    );
  });

  test('a qes-style PDF: two token signers (agent CMS) and the seal after them, each with its own field, all TOTAL-PASSED', async () => {
    const issuer = { pem: ec.issuingCa.pemFile, key: ec.issuingCa.keyFile };
    const tokens = ['Sara Ahmed', 'John Smith'].map((name, i) =>
      issueLeaf(ec.dir, `token${i}`, i === 0 ? 'ec' : 'rsa', SIGNING_EXT, issuer, [ec.issuingCa.der]),
    );
    let pdf = unsigned;
    for (const [i, token] of tokens.entries()) {
      const prepared = await preparePades(pdf, {
        certificate: token.der,
        chain: token.chain,
        keyAlgorithm: token.rsa ? 'RSA' : 'ECDSA-P256',
        signingTime: SIGNING_TIME,
        ...(i > 0 ? { mode: 'incremental' as const } : {}),
      });
      pdf = await completePadesFromCms(prepared, agentCms(token, prepared.byteRangeDigest), { timestamp: ec.timestamp, level: 'B-T' });
    }
    pdf = await appendSignature(pdf, {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-LT',
      revocation: ec.revocation,
      signingTime: SIGNING_TIME,
    });
    const report = await validate(pdf);
    assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures, null, 2));
    assert.deepEqual(
      report.signatures.map((s) => [s.fieldName, s.signer?.split(',')[0], s.level]),
      [
        ['Signature1', 'token0', 'B-T'],
        ['Signature2', 'token1', 'B-T'],
        ['Signature3', 'Tawqi Test Seal (EC)', 'B-LT'],
      ],
    );
  });

  test('a chain link through an issuer that is not a CA (basicConstraints cA false) is no chain: INDETERMINATE, NO_CERTIFICATE_CHAIN_FOUND', async () => {
    // An end-entity certificate of the trusted issuing CA (cA false, though its key usage allows
    // keyCertSign, so only the basicConstraints rule stops it) "issues" a signing certificate.
    const notCaExt = SIGNING_EXT.replace('digitalSignature, nonRepudiation', 'digitalSignature, keyCertSign');
    const notCa = issueLeaf(ec.dir, 'not-a-ca', 'ec', notCaExt, { pem: ec.issuingCa.pemFile, key: ec.issuingCa.keyFile }, [
      ec.issuingCa.der,
    ]);
    const leaf = issueLeaf(ec.dir, 'under-not-a-ca', 'ec', SIGNING_EXT, { pem: notCa.pem, key: notCa.keyFile }, [
      notCa.der,
      ec.issuingCa.der,
    ]);
    const prepared = await preparePades(unsigned, {
      certificate: leaf.der,
      chain: leaf.chain,
      keyAlgorithm: 'ECDSA-P256',
      signingTime: SIGNING_TIME,
    });
    const pdf = await completePadesFromCms(prepared, agentCms(leaf, prepared.byteRangeDigest), { timestamp: ec.timestamp, level: 'B-T' });
    const report = await validate(pdf);
    assert.deepEqual(
      [report.indication, report.subIndication],
      ['INDETERMINATE', 'NO_CERTIFICATE_CHAIN_FOUND'],
      JSON.stringify(report.signatures[0]?.chain),
    );
    const sig = report.signatures[0]!;
    assert.deepEqual(
      sig.integrity,
      { byteRangeCoversRevision: true, digestMatches: true, signatureValid: true },
      'the signature itself verifies',
    );
    assert.equal(sig.chain?.trustAnchor, null);
    assert.equal(sig.chain?.certificates.length, 1, 'the path stops at the leaf: its would-be issuer is not a CA');
  });

  test('timestamps whose token omits the TSA certificate (certReq false): found in the /DSS, else NO_SIGNING_CERTIFICATE_FOUND', async () => {
    const bare = tsaWithoutCertificate(ec.dir);
    // Signature-time-stamp: nothing in the file holds the TSA certificate.
    const btBare = await signPades(unsigned, { signer: ec.signer, timestamp: bare, level: 'B-T', signingTime: SIGNING_TIME });
    const missing = await validate(btBare);
    assert.deepEqual([missing.indication, missing.subIndication], ['INDETERMINATE', 'NO_SIGNING_CERTIFICATE_FOUND']);
    assert.equal(missing.signatures[0]?.level, 'B-B', 'a timestamp that cannot be verified does not make B-T');
    // The same with the TSA certificate in the /DSS (B-LT): verified through it.
    const revocation = { ...ec.revocation, certificates: [...ec.revocation.certificates, ec.tsa.der] };
    const bltBare = await signPades(unsigned, { signer: ec.signer, timestamp: bare, level: 'B-LT', revocation, signingTime: SIGNING_TIME });
    const found = await validate(bltBare);
    assert.equal(found.indication, 'TOTAL-PASSED', JSON.stringify(found.signatures[0], null, 2));
    assert.equal(found.signatures[0]?.level, 'B-LT');
    assert.match(found.signatures[0]?.timestamp?.tsa ?? '', /Tawqi Test TSA/);
    // Document timestamp: over a B-T file (no /DSS) its TSA is nowhere; over the B-LT file above it is in the /DSS.
    const docMissing = await validate(await appendDocumentTimestamp(bt, bare));
    assert.deepEqual(
      docMissing.signatures.map((s) => [s.kind, s.indication, s.subIndication]),
      [
        ['signature', 'TOTAL-PASSED', null],
        ['document-timestamp', 'INDETERMINATE', 'NO_SIGNING_CERTIFICATE_FOUND'],
      ],
    );
    const docFound = await validate(await appendDocumentTimestamp(bltBare, bare));
    assert.equal(docFound.indication, 'TOTAL-PASSED', JSON.stringify(docFound.signatures, null, 2));
    assert.deepEqual(
      docFound.signatures.map((s) => s.level),
      ['B-LTA', null],
    );
  });

  test('a byte flipped inside the signed range: total-failed, HASH_FAILURE', async () => {
    const tampered = Uint8Array.from(bt);
    // The binary comment on the header's second line: inside the first range, harmless to a parser.
    tampered[10] = tampered[10]! ^ 0x01;
    const report = await validate(tampered);
    assert.equal(report.indication, 'TOTAL-FAILED');
    assert.equal(report.subIndication, 'HASH_FAILURE');
    assert.equal(report.signatures[0]?.integrity.digestMatches, false);
  });

  test('page content changed in a later incremental update: total-failed, MODIFIED_AFTER_SIGNING', async () => {
    const update = await IncrementalUpdate.open(blt);
    const page = update.doc.getPages()[0]!;
    const contents = update.context.flateStream('BT /F1 40 Tf 100 400 Td (PAID) Tj ET');
    const contentsRef = update.allocate();
    update.set(contentsRef, contents);
    page.node.set(PDFName.of('Contents'), contentsRef);
    update.set(page.ref, page.node);
    const report = await validate(update.toBytes());
    assert.equal(report.indication, 'TOTAL-FAILED');
    assert.equal(report.subIndication, 'MODIFIED_AFTER_SIGNING');
    const disallowed = report.signatures[0]!.modifications.disallowed.join('\n');
    assert.match(disallowed, /changed \d+ 0 R \(Page\)/);
  });

  test('an annotation added after signing: total-failed, MODIFIED_AFTER_SIGNING', async () => {
    const update = await IncrementalUpdate.open(bt);
    const page = update.doc.getPages()[1]!;
    const annotRef = update.allocate();
    update.set(annotRef, update.context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [10, 10, 30, 30], Contents: 'cancelled' }));
    const annots = (page.node.lookup(PDFName.of('Annots')) as PDFArray | undefined) ?? update.context.obj([]);
    annots.push(annotRef);
    page.node.set(PDFName.of('Annots'), annots);
    update.set(page.ref, page.node);
    const report = await validate(update.toBytes());
    assert.equal(report.subIndication, 'MODIFIED_AFTER_SIGNING');
    assert.match(report.signatures[0]!.modifications.disallowed.join('\n'), /added \d+ 0 R \(Text\)/);
  });

  test('a signature dictionary rewritten in a later revision: MODIFIED_AFTER_SIGNING', async () => {
    const update = await IncrementalUpdate.open(bt);
    const [ref, dict] = update.context
      .enumerateIndirectObjects()
      .find(([, o]) => o instanceof PDFDict && o.has(PDFName.of('ByteRange'))) as [PDFRef, PDFDict];
    dict.set(PDFName.of('Reason'), PDFString.of('approved by someone else'));
    update.set(ref, dict);
    const report = await validate(update.toBytes());
    assert.equal(report.subIndication, 'MODIFIED_AFTER_SIGNING');
    assert.match(report.signatures[0]!.modifications.disallowed.join('\n'), new RegExp(`changed ${ref.objectNumber} 0 R \\(Sig\\)`));
  });

  test('checked against another root: indeterminate, NO_CERTIFICATE_CHAIN_FOUND; Arabic message by default data', async () => {
    const report = await validate(bt, [other.root.der], 'ar');
    assert.equal(report.indication, 'INDETERMINATE');
    assert.equal(report.subIndication, 'NO_CERTIFICATE_CHAIN_FOUND');
    assert.equal(report.signatures[0]?.chain?.trustAnchor, null);
    assert.match(report.message, /جهة ثقة/);
  });

  describe('proof of existence: a TSA certificate that expires (the validation time moved, never slept)', () => {
    const DAY = 86_400_000;
    /** Past the one-day TSA's notAfter, long before the fixture's other certificates'. */
    const LATER = new Date(Date.now() + 2 * DAY);
    let shortTsa: ReturnType<typeof fixtureTsa>;
    /** B-LT whose signature-time-stamp comes from the one-day TSA. */
    let shortBlt: Uint8Array;
    const validateAt = (pdf: Uint8Array, now: Date) => validatePdf(pdf, { trustAnchors: [ec.root.der], now, lang: 'en' });
    before(async () => {
      shortTsa = fixtureTsa(ec.dir, 'tsa-one-day', 1);
      shortBlt = await signPades(unsigned, {
        signer: ec.signer,
        timestamp: shortTsa.timestamp,
        level: 'B-LT',
        revocation: ec.revocation,
        signingTime: SIGNING_TIME,
      });
    });

    test('without a document timestamp: TOTAL-PASSED now, INDETERMINATE / OUT_OF_BOUNDS_NO_POE once the signature TSA expired', async () => {
      assert.equal((await validateAt(shortBlt, NOW)).indication, 'TOTAL-PASSED');
      const report = await validateAt(shortBlt, LATER);
      assert.deepEqual([report.indication, report.subIndication], ['INDETERMINATE', 'OUT_OF_BOUNDS_NO_POE']);
      const sig = report.signatures[0]!;
      assert.equal(sig.timestamp?.chain.checkedAt, LATER.toISOString(), 'nothing proves the token earlier than the validation time');
      assert.equal(sig.timestamp.chain.validAtTime, false);
      assert.equal(sig.chain?.checkedAt, sig.signingTime, 'the signer is still checked at the signing time');
    });

    test('a document timestamp by a longer-lived TSA proves the signature-time-stamp: TOTAL-PASSED at B-LTA after the expiry', async () => {
      const blta = await appendDocumentTimestamp(shortBlt, ec.timestamp);
      const report = await validateAt(blta, LATER);
      assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures, null, 2));
      const [sig, docTs] = report.signatures;
      assert.equal(sig?.level, 'B-LTA');
      assert.equal(
        sig.timestamp?.chain.checkedAt,
        docTs?.signingTime,
        "the signature TSA's chain is checked at the document timestamp's time",
      );
      assert.equal(docTs?.chain?.checkedAt, LATER.toISOString(), 'the last document timestamp is checked at the validation time');
    });

    test('an expired last document timestamp: INDETERMINATE / OUT_OF_BOUNDS_NO_POE; a later one renews it', async () => {
      const stale = await appendDocumentTimestamp(blt, shortTsa.timestamp);
      const report = await validateAt(stale, LATER);
      assert.deepEqual([report.indication, report.subIndication], ['INDETERMINATE', 'OUT_OF_BOUNDS_NO_POE']);
      assert.deepEqual(
        report.signatures.map((s) => [s.kind, s.indication]),
        [
          ['signature', 'TOTAL-PASSED'],
          ['document-timestamp', 'INDETERMINATE'],
        ],
      );
      const renewed = await validateAt(await appendDocumentTimestamp(stale, ec.timestamp), LATER);
      assert.equal(renewed.indication, 'TOTAL-PASSED', JSON.stringify(renewed.signatures, null, 2));
      assert.equal(renewed.signatures[1]?.chain?.checkedAt, renewed.signatures[2]?.signingTime);
    });
  });

  describe('revocation data: a revoked seal (openssl ca -revoke), its CRL and OCSP response genuine or forged', () => {
    let revoked: PkiFixture;
    /** The certificates of a look-alike issuing CA and of an OCSPSigning responder it issued. */
    let forgers: Uint8Array[];
    before(() => {
      revoked = createPkiFixture('ec');
      // Marks the seal revoked (now) in the issuing CA's index; the CRLs and OCSP responses below follow it.
      execFileSync(
        'openssl',
        ['ca', '-config', 'openssl.cnf', '-name', 'CA_issuing', '-keyfile', 'issuing.key', '-cert', 'issuing.pem', '-revoke', 'seal.pem'],
        { cwd: revoked.dir, stdio: 'pipe' },
      );
      forgers = forgeIssuingCa(revoked.dir);
    });
    after(() => revoked.close());

    /** Revoked now, then signed: the signature-time-stamp (whole seconds) is at or after the revocation. */
    const signedWith = async (revocation: { certificates: Uint8Array[]; crls: Uint8Array[]; ocspResponses: Uint8Array[] }) => {
      const pdf = await signPades(unsigned, {
        signer: revoked.signer,
        timestamp: revoked.timestamp,
        level: 'B-LT',
        revocation,
        signingTime: new Date(),
      });
      const report = await validate(pdf, [revoked.root.der]);
      return { report, sig: report.signatures[0]! };
    };

    test('a genuine CRL or OCSP response naming the seal: TOTAL-FAILED, REVOKED, nothing ignored', async () => {
      for (const revocation of [
        { certificates: [], crls: [fixtureCrl(revoked.dir, 'issuing')], ocspResponses: [] },
        { certificates: [revoked.ocspResponder.der], crls: [], ocspResponses: [sealOcspResponse(revoked.dir)] },
      ]) {
        const { report, sig } = await signedWith(revocation);
        assert.equal(report.subIndication, 'REVOKED', JSON.stringify(sig.revocation));
        assert.deepEqual([sig.revocation.signerRevoked, sig.revocation.ignoredCrls, sig.revocation.ignoredOcsps], [true, 0, 0]);
      }
      // The untouched B-LT PDF of the other PKI, whose seal is not revoked, says so.
      assert.equal((await validate(blt)).signatures[0]?.revocation.signerRevoked, false);
    });

    test('a forged CRL (issuer name, another key) or a forged delegated OCSP response is ignored: not revoked, not B-LT, counted', async () => {
      const forged = [
        { certificates: forgers, crls: [fixtureCrl(revoked.dir, 'issuing', 'forged')], ocspResponses: [] },
        { certificates: forgers, crls: [], ocspResponses: [sealOcspResponse(revoked.dir, 'forged-ocsp')] },
      ];
      for (const [i, revocation] of forged.entries()) {
        const { report, sig } = await signedWith(revocation);
        assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(sig, null, 2));
        assert.equal(sig.revocation.signerRevoked, false);
        assert.equal(sig.level, 'B-T', 'only unauthenticated revocation data in the DSS: not B-LT');
        assert.deepEqual([sig.revocation.ignoredCrls, sig.revocation.ignoredOcsps], i === 0 ? [1, 0] : [0, 1]);
      }
      // Beside a genuine CRL, the forged OCSP response is still counted as ignored and the genuine CRL decides.
      const { report, sig } = await signedWith({
        certificates: [...forgers, revoked.ocspResponder.der],
        crls: [fixtureCrl(revoked.dir, 'issuing')],
        ocspResponses: [sealOcspResponse(revoked.dir, 'forged-ocsp')],
      });
      assert.equal(report.subIndication, 'REVOKED');
      assert.deepEqual([sig.level, sig.revocation.ignoredCrls, sig.revocation.ignoredOcsps], ['B-LT', 0, 1]);
    });
  });

  describe('revocation data: a revoked issuing CA (openssl ca -revoke in the root), the root’s CRL genuine or forged', () => {
    let fixture: PkiFixture;
    before(() => {
      fixture = createPkiFixture('ec');
      // The root revokes the issuing CA now; the seal the issuing CA issued is itself not revoked.
      execFileSync(
        'openssl',
        ['ca', '-config', 'openssl.cnf', '-name', 'CA_root', '-keyfile', 'root.key', '-cert', 'root.pem', '-revoke', 'issuing.pem'],
        {
          cwd: fixture.dir,
          stdio: 'pipe',
        },
      );
    });
    after(() => fixture.close());

    const signedWith = async (crls: Uint8Array[]) => {
      const pdf = await signPades(unsigned, {
        signer: fixture.signer,
        timestamp: fixture.timestamp,
        level: 'B-LT',
        revocation: { certificates: [], crls: [fixtureCrl(fixture.dir, 'issuing'), ...crls], ocspResponses: [] },
        signingTime: new Date(),
      });
      return validate(pdf, [fixture.root.der]);
    };

    test('the root’s CRL naming the issuing CA: INDETERMINATE / REVOKED_CA_NO_POE, the CA named, the signer itself not revoked', async () => {
      const report = await signedWith([fixtureCrl(fixture.dir, 'root')]);
      const sig = report.signatures[0]!;
      assert.deepEqual([report.indication, report.subIndication], ['INDETERMINATE', 'REVOKED_CA_NO_POE'], JSON.stringify(sig.revocation));
      assert.equal(sig.revocation.signerRevoked, false);
      assert.deepEqual(sig.revocation.revokedCas, [sig.chain!.certificates[1]!.subject]);
      assert.match(sig.revocation.revokedCas[0]!, /Tawqi Test Issuing CA/);
      assert.match(report.message, /certificate authority on the signer's chain was revoked/);
    });

    test('without the root’s CRL, or with one in the root’s name the root did not sign, the chain stands: TOTAL-PASSED, no revoked CA', async () => {
      // A look-alike root: the same name, another key. Its CRL lists the issuing CA too.
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
          ...['-keyout', 'lookalike-root.key', '-out', 'lookalike-root.pem', '-subj', '/O=Tawqi Tests/CN=Tawqi Test Root CA'],
          ...['-days', '30', '-config', 'openssl.cnf', '-extensions', 'v3_root'],
        ],
        { cwd: fixture.dir, stdio: 'pipe' },
      );
      for (const crls of [[], [fixtureCrl(fixture.dir, 'root', 'lookalike-root')]]) {
        const report = await signedWith(crls);
        const sig = report.signatures[0]!;
        assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(sig.revocation));
        assert.deepEqual(sig.revocation.revokedCas, []);
      }
    });
  });

  test('input bounds: a non-PDF and an oversize file are refused', async () => {
    await assert.rejects(
      validate(new TextEncoder().encode('hello')),
      (err: unknown) => err instanceof ValidationInputError && err.code === 'not_pdf',
    );
    const big = new Uint8Array(25 * 1024 * 1024 + 1);
    await assert.rejects(validate(big), (err: unknown) => err instanceof ValidationInputError && err.code === 'too_large');
  });

  describe('a PDF signed outside the project (@signpdf + openssl cms)', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'tawqi-extsig-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** @signpdf's Signer that asks the openssl CLI for a detached CMS over the ByteRange bytes. */
    class OpensslSigner extends Signer {
      override async sign(pdfBuffer: Buffer): Promise<Buffer> {
        const input = path.join(dir, 'signed-bytes.bin');
        writeFileSync(input, pdfBuffer);
        const args = ['cms', '-sign', '-binary', '-outform', 'DER', '-in', input, '-signer', ec.seal.pemFile, '-inkey', ec.seal.keyFile];
        return execFileSync('openssl', [...args, '-certfile', ec.untrustedFile, '-md', 'sha256', '-nosmimecap']);
      }
    }

    const externalPdf = async (): Promise<Uint8Array> => {
      const doc = await PDFDocument.load(unsigned);
      pdflibAddPlaceholder({
        pdfDoc: doc,
        reason: 'test',
        contactInfo: 'x@example.com',
        name: 'openssl',
        location: 'here',
        signatureLength: 16384,
      });
      const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
      return new Uint8Array(await new SignPdf().sign(prepared, new OpensslSigner()));
    };

    test('validated: B-B (no timestamp), signer and chain found, total-passed; tampered: HASH_FAILURE', async () => {
      const pdf = await externalPdf();
      const report = await validate(pdf);
      assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures, null, 2));
      const [sig] = report.signatures;
      assert.equal(sig?.level, 'B-B');
      assert.equal(sig.subFilter, 'adbe.pkcs7.detached');
      assert.equal(sig.timestamp, null);
      assert.ok(sig.chain?.trustAnchor);
      const tampered = Uint8Array.from(pdf);
      tampered[10] = tampered[10]! ^ 0x01;
      assert.equal((await validate(tampered)).subIndication, 'HASH_FAILURE');
      // The last byte of the DER CMS is the end of the signature value (no unsigned attributes):
      // changed in /Contents (outside the ByteRange), the digest still matches but the signature does not verify.
      const bad = Uint8Array.from(pdf);
      const open = Buffer.from(bad).indexOf('/Contents <') + '/Contents <'.length;
      const derLength = asn1js.fromBER(
        Buffer.from(
          Buffer.from(bad.subarray(open, open + 40000))
            .toString('latin1')
            .split('>')[0]!,
          'hex',
        ),
      ).offset;
      const at = open + derLength * 2 - 1;
      bad[at] = bad[at] === 0x30 ? 0x31 : 0x30;
      const broken = await validate(bad);
      assert.equal(broken.subIndication, 'SIG_CRYPTO_FAILURE', JSON.stringify(broken.signatures[0]?.integrity));
      assert.deepEqual(broken.signatures[0]?.integrity, { byteRangeCoversRevision: true, digestMatches: true, signatureValid: false });
    });
  });

  test('the catalog of a signed PDF is unchanged by validation (bytes in, report out)', async () => {
    const copy = Uint8Array.from(blt);
    await validate(copy);
    assert.deepEqual(copy, blt);
    const doc = await PDFDocument.load(blt);
    assert.ok(doc.catalog.lookup(PDFName.of('DSS')) instanceof PDFDict);
  });
});
