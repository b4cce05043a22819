/**
 * The CMS module (@tawqi/shared/cms) structure by structure: each builder's DER read back by its
 * reader (build → DER → parse → equal), the SignedData assembly, the timestamp-token check, the DER
 * helpers and OIDs; and that the module stays browser-safe (no Node APIs, not in the main entry).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  CmsError,
  OID_ATTR_CONTENT_TYPE,
  OID_ATTR_MESSAGE_DIGEST,
  OID_ATTR_SIGNING_CERTIFICATE_V2,
  OID_CT_TST_INFO,
  OID_DATA,
  OID_ECDSA_SHA256,
  OID_SHA256,
  OID_SHA256_RSA,
  TSA_POLICY_OID,
  checkTimestampToken,
  compareDer,
  contentTypeAttribute,
  der,
  distinctDer,
  ecdsaRawToDer,
  hashOid,
  isDerEcdsa,
  issuerAndSerialOf,
  messageDigestAttribute,
  messageDigestOf,
  normaliseOid,
  padesSignedAttributes,
  readContentType,
  readMessageDigest,
  readSignatureTimeStampToken,
  readSignedAttributes,
  readSignedData,
  readSigningCertificateV2,
  readSigningTime,
  sha256SignatureAlgorithm,
  signatureTimeStampTokenAttribute,
  signedAttributesDer,
  signedData,
  signingCertificateHashOf,
  signingCertificateV2Attribute,
  signingTimeAttribute,
} from '@tawqi/shared/cms';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();
const pem2der = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');

/** An attribute through DER and back, as a reader sees it. */
const reparse = (attribute: pkijs.Attribute): pkijs.Attribute =>
  new pkijs.Attribute({ schema: asn1js.fromBER(der(attribute.toSchema())).result });

let dir: string;
let cert: Buffer;
let key: KeyObject;
let rsaCert: Buffer;
let rsaKey: KeyObject;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tawqi-shared-cms-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ec.key',
    '-out',
    'ec.pem',
    '-subj',
    '/CN=CMS Module Test/O=مؤسسة',
    '-utf8',
    '-days',
    '3',
    '-set_serial',
    '0x00ff02',
  );
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'rsa.key',
    '-out',
    'rsa.pem',
    '-subj',
    '/CN=CMS Module RSA',
    '-days',
    '3',
  );
  cert = pem2der(readFileSync(path.join(dir, 'ec.pem'), 'utf8'));
  key = createPrivateKey(readFileSync(path.join(dir, 'ec.key')));
  rsaCert = pem2der(readFileSync(path.join(dir, 'rsa.pem'), 'utf8'));
  rsaKey = createPrivateKey(readFileSync(path.join(dir, 'rsa.key')));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('attributes: build → DER → read', () => {
  test('content-type', () => {
    assert.equal(readContentType(reparse(contentTypeAttribute(OID_CT_TST_INFO))), OID_CT_TST_INFO);
    assert.equal(reparse(contentTypeAttribute(OID_DATA)).type, OID_ATTR_CONTENT_TYPE);
  });

  test('message-digest', () => {
    const digest = sha256(Buffer.from('content'));
    assert.deepEqual(Buffer.from(readMessageDigest(reparse(messageDigestAttribute(digest)))), digest);
  });

  test('signing-time, whole seconds', () => {
    const at = new Date('2026-03-04T05:06:07.890Z');
    assert.equal(readSigningTime(reparse(signingTimeAttribute(at))).toISOString(), '2026-03-04T05:06:07.000Z');
  });

  test('signing-certificate-v2: SHA-256 certHash (hashAlgorithm omitted) and the certificate serial', () => {
    const read = readSigningCertificateV2(reparse(signingCertificateV2Attribute(cert, sha256(cert))));
    assert.equal(read.hashAlgorithm, OID_SHA256);
    assert.deepEqual(Buffer.from(read.certHash), sha256(cert));
    assert.deepEqual(Buffer.from(read.serialNumber ?? []).toString('hex'), '020300ff02');
    assert.deepEqual(read.serialNumber, issuerAndSerialOf(cert).serial);
    assert.throws(
      () => signingCertificateV2Attribute(cert, new Uint8Array(20)),
      (e: unknown) => e instanceof CmsError && e.code === 'invalid_certificate',
    );
    assert.throws(
      () => signingCertificateV2Attribute(Buffer.from([0x30, 0x00]), sha256(cert)),
      (e: unknown) => e instanceof CmsError && e.code === 'invalid_certificate',
    );
  });

  test('signing-certificate-v2 read by pkijs as its IssuerSerial: issuer and serial copied from the certificate', () => {
    const attribute = reparse(signingCertificateV2Attribute(cert, sha256(cert)));
    const essCertId = ((attribute.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock
      .value[0] as asn1js.Sequence;
    const issuerSerial = new pkijs.IssuerSerial({ schema: essCertId.valueBlock.value[1] });
    const parsed = pkijs.Certificate.fromBER(cert);
    assert.ok(issuerSerial.serialNumber.isEqual(parsed.serialNumber));
    assert.ok((issuerSerial.issuer.names[0]?.value as pkijs.RelativeDistinguishedNames).isEqual(parsed.issuer));
  });

  test('signature-time-stamp token, byte for byte', () => {
    assert.deepEqual(Buffer.from(readSignatureTimeStampToken(reparse(signatureTimeStampTokenAttribute(cert)))), cert);
  });

  test('signed attributes: a DER SET OF in DER order, read back as the same attributes', () => {
    const attributes = [
      contentTypeAttribute(OID_DATA),
      signingTimeAttribute(new Date()),
      messageDigestAttribute(sha256(cert)),
      signingCertificateV2Attribute(cert, sha256(cert)),
    ];
    const set = signedAttributesDer(attributes);
    assert.equal(set[0], 0x31);
    const read = readSignedAttributes(set);
    const encoded = read.map((a) => der(a.toSchema()));
    assert.deepEqual(encoded, [...encoded].sort(compareDer), 'sorted by encoding');
    assert.deepEqual(
      encoded.map((e) => Buffer.from(e).toString('hex')).sort(),
      attributes.map((a) => Buffer.from(der(a.toSchema())).toString('hex')).sort(),
    );
    assert.deepEqual(Buffer.from(signedAttributesDer(read)), Buffer.from(set), 'reading and building again gives the same bytes');
    assert.throws(
      () => readSignedAttributes(Buffer.from([0x30, 0x00])),
      (e: unknown) => e instanceof CmsError && e.code === 'invalid_cms',
    );
  });

  test('the PAdES set: content-type id-data, message-digest, signing-certificate-v2, no signing-time', () => {
    const digest = sha256(Buffer.from('%PDF byte range'));
    const set = padesSignedAttributes(cert, sha256(cert), digest);
    assert.deepEqual(
      readSignedAttributes(set)
        .map((a) => a.type)
        .sort(),
      [OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_CERTIFICATE_V2].sort(),
    );
    assert.deepEqual(Buffer.from(messageDigestOf(set)), digest);
    assert.deepEqual(Buffer.from(signingCertificateHashOf(set)), sha256(cert));
    assert.throws(
      () => padesSignedAttributes(cert, sha256(cert), new Uint8Array(20)),
      (e: unknown) => e instanceof CmsError && e.code === 'digest_mismatch',
    );
    assert.throws(
      () => signingCertificateHashOf(signedAttributesDer([contentTypeAttribute(OID_DATA)])),
      /signing-certificate-v2 is missing or malformed/,
    );
    assert.throws(() => messageDigestOf(signedAttributesDer([contentTypeAttribute(OID_DATA)])), /no message-digest/);
  });
});

describe('SignedData: build → DER → read', () => {
  test('detached, id-data, v1: signer, certificates, algorithms and the signed bytes kept', () => {
    const signedAttributes = padesSignedAttributes(rsaCert, sha256(rsaCert), sha256(Buffer.from('doc')));
    const signature = sign('sha256', signedAttributes, rsaKey);
    const cms = signedData({
      signerCertificate: rsaCert,
      certificates: [rsaCert, cert],
      signedAttributes,
      signatureAlgorithm: sha256SignatureAlgorithm('rsa'),
      signature,
    });
    const sd = readSignedData(cms);
    assert.equal(sd.version, 1);
    assert.equal(sd.encapContentInfo.eContentType, OID_DATA);
    assert.equal(sd.encapContentInfo.eContent, undefined);
    assert.deepEqual(
      (sd.certificates as pkijs.Certificate[]).map((c) => Buffer.from(der(c.toSchema()))),
      [rsaCert, cert],
    );
    const si = sd.signerInfos[0]!;
    assert.equal(sd.signerInfos.length, 1);
    assert.equal(si.digestAlgorithm.algorithmId, OID_SHA256);
    assert.equal(si.signatureAlgorithm.algorithmId, OID_SHA256_RSA);
    assert.ok(si.signatureAlgorithm.algorithmParams instanceof asn1js.Null);
    assert.ok(
      si.sid instanceof pkijs.IssuerAndSerialNumber && si.sid.serialNumber.isEqual(pkijs.Certificate.fromBER(rsaCert).serialNumber),
    );
    const embedded = Buffer.from(si.signedAttrs!.encodedValue);
    embedded[0] = 0x31;
    assert.deepEqual(embedded, Buffer.from(signedAttributes));
    assert.deepEqual(Buffer.from(si.signature.valueBlock.valueHexView), signature);
    assert.equal(si.unsignedAttrs, undefined);
  });

  test('encapsulated content (v3), ECDSA, no certificates, an unsigned attribute', () => {
    const content = Buffer.from('a TSTInfo, say');
    const signedAttributes = signedAttributesDer([contentTypeAttribute(OID_CT_TST_INFO), messageDigestAttribute(sha256(content))]);
    const signature = sign('sha256', signedAttributes, { key, dsaEncoding: 'der' });
    const cms = signedData({
      contentType: OID_CT_TST_INFO,
      content,
      signerCertificate: cert,
      certificates: [],
      signedAttributes,
      signatureAlgorithm: sha256SignatureAlgorithm('ec'),
      signature,
      unsignedAttributes: [signatureTimeStampTokenAttribute(rsaCert)],
    });
    const sd = readSignedData(cms);
    assert.equal(sd.version, 3);
    assert.equal(sd.certificates, undefined);
    assert.deepEqual(Buffer.from((sd.encapContentInfo.eContent as asn1js.OctetString).getValue()), content);
    const si = sd.signerInfos[0]!;
    assert.equal(si.signatureAlgorithm.algorithmId, OID_ECDSA_SHA256);
    assert.equal(si.signatureAlgorithm.algorithmParams, undefined);
    assert.deepEqual(Buffer.from(readSignatureTimeStampToken(si.unsignedAttrs!.attributes[0]!)), rsaCert);
  });

  test('refuses signed attributes that are not a DER SET OF, and what is not a SignedData', () => {
    assert.throws(() =>
      signedData({
        signerCertificate: rsaCert,
        certificates: [],
        signedAttributes: Buffer.from([0x30, 0x00]),
        signatureAlgorithm: sha256SignatureAlgorithm('rsa'),
        signature: new Uint8Array(256),
      }),
    );
    assert.throws(() => readSignedData(cert), /ContentInfo/);
    assert.throws(
      () => readSignedData(cert.subarray(0, 40)),
      (e: unknown) => e instanceof CmsError && e.code === 'invalid_cms',
    );
  });
});

describe('timestamp token', () => {
  const tokenOver = (imprint: Uint8Array, genTime: Date): Uint8Array => {
    const tstInfo = new pkijs.TSTInfo({
      version: 1,
      policy: TSA_POLICY_OID,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256 }),
        hashedMessage: new asn1js.OctetString({ valueHex: imprint }),
      }),
      serialNumber: new asn1js.Integer({ value: 7 }),
      genTime,
    });
    const content = der(tstInfo.toSchema());
    const signedAttributes = signedAttributesDer([
      contentTypeAttribute(OID_CT_TST_INFO),
      messageDigestAttribute(sha256(content)),
      signingCertificateV2Attribute(cert, sha256(cert)),
    ]);
    return signedData({
      contentType: OID_CT_TST_INFO,
      content,
      signerCertificate: cert,
      certificates: [cert],
      signedAttributes,
      signatureAlgorithm: sha256SignatureAlgorithm('ec'),
      signature: sign('sha256', signedAttributes, { key, dsaEncoding: 'der' }),
    });
  };

  test('imprint, genTime and certificates read back; another imprint is refused', () => {
    const digest = sha256(Buffer.from('signature value'));
    const genTime = new Date('2026-01-02T03:04:05Z');
    const info = checkTimestampToken(tokenOver(digest, genTime), digest);
    assert.equal(info.genTime.toISOString(), genTime.toISOString());
    assert.deepEqual(
      info.certificates.map((c) => Buffer.from(c)),
      [cert],
    );
    assert.throws(
      () => checkTimestampToken(tokenOver(digest, genTime), sha256(Buffer.from('other'))),
      (e: unknown) => e instanceof CmsError && e.code === 'invalid_timestamp' && /imprint does not match/.test(e.message),
    );
    assert.throws(
      () => checkTimestampToken(cert, digest),
      (e: unknown) => e instanceof CmsError && e.code === 'invalid_timestamp',
    );
  });
});

describe('DER helpers and OIDs', () => {
  test('ECDSA raw r‖s → DER → raw is the signature Node makes', () => {
    const data = Buffer.from('data');
    const rawSignature = sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    const derSignature = ecdsaRawToDer(rawSignature);
    assert.ok(isDerEcdsa(derSignature));
    assert.equal(isDerEcdsa(rawSignature), false);
    const [r, s] = (asn1js.fromBER(derSignature).result as asn1js.Sequence).valueBlock.value as asn1js.Integer[];
    const unsigned = (i: asn1js.Integer) => Buffer.from(i!.valueBlock.valueHexView).toString('hex').replace(/^00/, '').padStart(64, '0');
    assert.equal(unsigned(r!) + unsigned(s!), rawSignature.toString('hex'));
    assert.throws(() => ecdsaRawToDer(new Uint8Array(63)));
  });

  test('DER order and distinct elements', () => {
    assert.ok(compareDer(Uint8Array.of(1, 2), Uint8Array.of(1, 3)) < 0);
    assert.ok(compareDer(Uint8Array.of(1), Uint8Array.of(1, 0)) < 0);
    assert.equal(compareDer(Uint8Array.of(4, 5), Uint8Array.of(4, 5)), 0);
    assert.deepEqual(distinctDer([cert, rsaCert, Buffer.from(cert)]), [cert, rsaCert]);
  });

  test('normaliseOid turns asn1js {hex} arcs back into decimal; hashOid knows names and OIDs', () => {
    const encoded = asn1js.fromBER(der(new asn1js.ObjectIdentifier({ value: TSA_POLICY_OID }))).result as asn1js.ObjectIdentifier;
    assert.equal(normaliseOid(encoded.valueBlock.toString()), TSA_POLICY_OID);
    assert.equal(normaliseOid('1.2.3'), '1.2.3');
    assert.equal(hashOid('SHA-256'), OID_SHA256);
    assert.equal(hashOid('sha256'), OID_SHA256);
    assert.equal(hashOid(OID_SHA256), OID_SHA256);
    assert.equal(hashOid('md5'), null);
  });
});

describe('browser-safe', () => {
  test('no Node modules or globals in shared/src, and the main entry does not load the CMS module', () => {
    const files = (sub: string): string[] =>
      readdirSync(path.join(ROOT, 'shared/src', sub), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(path.join(sub, e.name)) : [path.join(ROOT, 'shared/src', sub, e.name)],
      );
    for (const file of files('')) {
      const source = readFileSync(file, 'utf8');
      assert.doesNotMatch(source, /from ['"]node:|require\(|\bBuffer\b|\bprocess\./, file);
    }
    const index = readFileSync(path.join(ROOT, 'shared/src/index.ts'), 'utf8');
    assert.doesNotMatch(index, /cms/);
  });
});
