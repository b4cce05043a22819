/**
 * The CMS the agent builds, checked field by field with pkijs and end to end with `openssl cms
 * -verify`. Signatures here come from software keys (the token paths are in tokens.test.ts and
 * protocol.test.ts): RSA PKCS#1 v1.5 bytes as a token returns them, ECDSA as raw r‖s.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  OID_ATTR_CONTENT_TYPE,
  OID_ATTR_MESSAGE_DIGEST,
  OID_ATTR_SIGNING_CERTIFICATE_V2,
  OID_ATTR_SIGNING_TIME,
  OID_DATA,
  OID_SHA256,
  OID_SHA256_RSA,
  OID_SIGNED_DATA,
} from '@tawqi/shared/cms';
import { assembleSignedData, buildSignedAttributes, opensslPrint, opensslVerify } from './helpers.js';

let dir: string;
const pem2der = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
const content = Buffer.from('%PDF-1.7 the bytes of the ByteRange, whatever they are\n');
const digest = createHash('sha256').update(content).digest();

interface Leaf {
  der: Buffer;
  key: ReturnType<typeof createPrivateKey>;
}
let rsa: Leaf;
let ec: Leaf;
let caDer: Buffer;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tawqi-cms-test-'));
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-subj',
    '/CN=CMS Test CA',
    '-days',
    '30',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  writeFileSync(
    path.join(dir, 'leaf.ext'),
    '[ext]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
  );
  const leaf = (name: string, newkey: string[]): Leaf => {
    ssl(
      'req',
      '-new',
      '-newkey',
      ...newkey,
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=CMS ${name}/O=مؤسسة تجريبية`,
      '-utf8',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      '0x00ff01',
      '-days',
      '30',
      '-extfile',
      'leaf.ext',
      '-extensions',
      'ext',
      '-out',
      `${name}.pem`,
    );
    return {
      der: pem2der(readFileSync(path.join(dir, `${name}.pem`), 'utf8')),
      key: createPrivateKey(readFileSync(path.join(dir, `${name}.key`))),
    };
  };
  rsa = leaf('rsa', ['rsa:2048']);
  ec = leaf('ec', ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
  caDer = pem2der(readFileSync(path.join(dir, 'ca.pem'), 'utf8'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const parse = (der: Uint8Array) => asn1js.fromBER(der).result;

describe('signed attributes', () => {
  test('content-type, message-digest, signing-certificate-v2 — no signing-time — in DER order', () => {
    const attrs = buildSignedAttributes(rsa.der, digest);
    assert.equal(attrs[0], 0x31, 'a SET OF');
    const set = parse(attrs) as asn1js.Set;
    const elements = set.valueBlock.value.map((v) => Buffer.from(v.toBER()));
    const sorted = [...elements].sort(Buffer.compare);
    assert.deepEqual(elements, sorted, 'elements sorted by their encodings');
    const attributes = set.valueBlock.value.map((schema) => new pkijs.Attribute({ schema }));
    assert.deepEqual(
      attributes.map((a) => a.type).sort(),
      [OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_CERTIFICATE_V2].sort(),
    );
    assert.equal(
      attributes.some((a) => a.type === OID_ATTR_SIGNING_TIME),
      false,
    );

    const ct = attributes.find((a) => a.type === OID_ATTR_CONTENT_TYPE)?.values[0] as asn1js.ObjectIdentifier;
    assert.equal(ct.valueBlock.toString(), OID_DATA);
    const md = attributes.find((a) => a.type === OID_ATTR_MESSAGE_DIGEST)?.values[0] as asn1js.OctetString;
    assert.deepEqual(Buffer.from(md.getValue()), digest);

    // SigningCertificateV2 { certs { ESSCertIDv2 { certHash, issuerSerial } } } — hashAlgorithm omitted (SHA-256 default).
    const scv2 = attributes.find((a) => a.type === OID_ATTR_SIGNING_CERTIFICATE_V2)?.values[0] as asn1js.Sequence;
    const essCertId = ((scv2.valueBlock.value[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock.value;
    assert.ok(essCertId[0] instanceof asn1js.OctetString, 'certHash first: no hashAlgorithm');
    assert.deepEqual(Buffer.from((essCertId[0] as asn1js.OctetString).getValue()), createHash('sha256').update(rsa.der).digest());
    const issuerSerial = (essCertId[1] as asn1js.Sequence).valueBlock.value;
    assert.equal(Buffer.from((issuerSerial[1] as asn1js.Integer).valueBlock.valueHexView).toString('hex'), '00ff01');
  });

  test('a digest that is not SHA-256 is refused', () => {
    assert.throws(() => buildSignedAttributes(rsa.der, new Uint8Array(20)), /SHA-256/);
  });
});

describe('detached SignedData', () => {
  const build = (leaf: Leaf, keyType: 'rsa' | 'ec') => {
    const signedAttributes = buildSignedAttributes(leaf.der, digest);
    const signature =
      keyType === 'rsa'
        ? sign('sha256', signedAttributes, leaf.key)
        : sign('sha256', signedAttributes, { key: leaf.key, dsaEncoding: 'ieee-p1363' }); // raw r‖s, as PKCS#11 returns it
    return { signedAttributes, cms: assembleSignedData({ certificate: leaf.der, chain: [caDer], signedAttributes, keyType, signature }) };
  };

  test('structure: one SignerInfo by issuer and serial, no eContent, the certificate then the chain', () => {
    const { cms, signedAttributes } = build(rsa, 'rsa');
    const info = new pkijs.ContentInfo({ schema: parse(cms) });
    assert.equal(info.contentType, OID_SIGNED_DATA);
    const sd = new pkijs.SignedData({ schema: info.content });
    assert.equal(sd.version, 1);
    assert.equal(sd.encapContentInfo.eContentType, OID_DATA);
    assert.equal(sd.encapContentInfo.eContent, undefined, 'detached');
    assert.deepEqual(
      sd.digestAlgorithms.map((a) => a.algorithmId),
      [OID_SHA256],
    );
    const certs = (sd.certificates ?? []) as pkijs.Certificate[];
    assert.deepEqual(
      certs.map((c) => Buffer.from(c.toSchema().toBER())),
      [rsa.der, caDer],
    );
    assert.equal(sd.signerInfos.length, 1);
    const si = sd.signerInfos[0] as pkijs.SignerInfo;
    assert.equal(si.version, 1);
    assert.ok(si.sid instanceof pkijs.IssuerAndSerialNumber);
    assert.equal(si.digestAlgorithm.algorithmId, OID_SHA256);
    assert.equal(si.signatureAlgorithm.algorithmId, OID_SHA256_RSA);
    assert.equal(si.unsignedAttrs, undefined);
    const encoded = Buffer.from(si.signedAttrs?.toSchema().toBER() ?? new ArrayBuffer(0));
    encoded[0] = 0x31;
    assert.deepEqual(encoded, Buffer.from(signedAttributes), 'the signed bytes are the embedded ones');
  });

  test('openssl cms -verify accepts RSA and ECDSA (raw r‖s converted to DER)', () => {
    const caFile = path.join(dir, 'ca.pem');
    for (const [leaf, keyType] of [
      [rsa, 'rsa'],
      [ec, 'ec'],
    ] as const) {
      const { cms } = build(leaf, keyType);
      const verdict = opensslVerify(cms, content, caFile);
      assert.ok(verdict.ok, `${keyType}: ${verdict.output}`);
      assert.equal(opensslVerify(cms, Buffer.from('other content'), caFile).ok, false, 'a different document fails');
      const printed = opensslPrint(cms);
      assert.doesNotMatch(printed, /signingTime/);
      assert.match(printed, /id-smime-aa-signingCertificateV2|signingCertificateV2/);
      if (keyType === 'ec') assert.match(printed, /ecdsa-with-SHA256/);
    }
  });

  test('signed attributes that do not re-encode identically are refused', () => {
    const signedAttributes = buildSignedAttributes(rsa.der, digest);
    assert.throws(() =>
      assembleSignedData({
        certificate: rsa.der,
        chain: [],
        signedAttributes: Buffer.from([0x30, 0x00]),
        keyType: 'rsa',
        signature: new Uint8Array(256),
      }),
    );
    assert.ok(signedAttributes.byteLength > 0);
  });
});
