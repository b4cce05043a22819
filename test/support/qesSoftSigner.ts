/**
 * A software stand-in for a signer's token in qes tests: leaf certificates issued with openssl from
 * a test CA (test/support/pkiFixture.ts), and the detached CMS SignedData built with pkijs exactly as
 * the desktop agent builds it (signed attributes content-type, message-digest, signing-certificate-v2
 * in DER order; no signing-time), signed with node:crypto. Also reads signatures back out of a PDF.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
};

/** A certificate with its private key, as a token holds it. */
export interface TokenKey {
  der: Uint8Array;
  /** Issuers towards the root (DER), leaf's issuer first. */
  chain: Uint8Array[];
  key: KeyObject;
  rsa: boolean;
}

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
export const sha256 = (bytes: Uint8Array | string): Buffer => createHash('sha256').update(bytes).digest();

export const SIGNING_EXT =
  'basicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature, nonRepudiation\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always';

/** Issue a leaf from `issuer` with openssl in `dir` (extensions given as config lines); CN = name. */
export function issueLeaf(
  dir: string,
  name: string,
  key: 'rsa' | 'ec',
  ext: string,
  issuer: { pem: string; key: string },
  chain: Uint8Array[],
  days = 825,
): TokenKey & { pem: string; keyFile: string } {
  const cnf = path.join(dir, `${name}.cnf`);
  writeFileSync(cnf, `[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = unused\n[ext]\n${ext}\n`);
  const keyArgs = key === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  run([
    'req',
    '-new',
    ...keyArgs,
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/O=Tawqi Tests/CN=${name}`,
    '-config',
    cnf,
  ]);
  run([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    issuer.pem,
    '-CAkey',
    issuer.key,
    '-set_serial',
    `0x4${randomBytes(10).toString('hex')}`,
    '-days',
    String(days),
    '-sha256',
    '-extfile',
    cnf,
    '-extensions',
    'ext',
    '-out',
    `${name}.pem`,
  ]);
  const pem = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  const der = new Uint8Array(new X509Certificate(readFileSync(pem)).raw);
  return { der, chain, key: createPrivateKey(readFileSync(keyFile)), rsa: key === 'rsa', pem, keyFile };
}

/** A self-signed root nobody configured, made in `dir`: PEM and key files and its DER. */
export function untrustedRoot(dir: string): { pem: string; key: string; der: Uint8Array } {
  writeFileSync(
    path.join(dir, 'other.cnf'),
    '[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = unused\n[root]\nbasicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\n',
  );
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'other-root.key',
      '-out',
      'other-root.pem',
      '-subj',
      '/O=Elsewhere/CN=Untrusted Root',
      '-days',
      '3650',
      '-config',
      'other.cnf',
      '-extensions',
      'root',
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  const pem = path.join(dir, 'other-root.pem');
  return { pem, key: path.join(dir, 'other-root.key'), der: new Uint8Array(new X509Certificate(readFileSync(pem)).raw) };
}

/**
 * The detached CMS SignedData the agent returns: signed attributes content-type (id-data),
 * message-digest, signing-certificate-v2 in DER order, signed with the token key (RSA PKCS#1 v1.5
 * or ECDSA DER), the certificate and its chain in SignedData.certificates. `certificate` names
 * another certificate in the attributes and the SignerInfo than the key's own (negative tests).
 */
export function agentCms(signer: TokenKey, digest: Uint8Array, options: { certificate?: Uint8Array } = {}): Uint8Array {
  const certDer = options.certificate ?? signer.der;
  const cert = pkijs.Certificate.fromBER(new Uint8Array(certDer).buffer);
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      new asn1js.OctetString({ valueHex: sha256(certDer) }),
      new asn1js.Sequence({
        value: [new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }).toSchema(), cert.serialNumber],
      }),
    ],
  });
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] }),
    new pkijs.Attribute({
      type: OID.signingCertificateV2,
      values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
    }),
  ]
    .map((a) => ({ a, der: Buffer.from(a.toSchema().toBER(false)) }))
    .sort((x, y) => Buffer.compare(x.der, y.der))
    .map((x) => x.a);
  const signedAttributesDer = new Uint8Array(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(false));
  const signature = sign('sha256', signedAttributesDer, signer.key);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
    signatureAlgorithm: signer.rsa
      ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRSA, algorithmParams: new asn1js.Null() })
      : new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSHA256 }),
    signature: new asn1js.OctetString({ valueHex: signature }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates: [cert, ...signer.chain.map((c) => pkijs.Certificate.fromBER(new Uint8Array(c).buffer))],
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return new Uint8Array(contentInfo.toSchema().toBER(false));
}

export interface PdfSignature {
  byteRange: [number, number, number, number];
  /** The DER CMS from /Contents (without the zero padding). */
  cms: Buffer;
  /** The bytes the ByteRange covers. */
  signedBytes: Buffer;
}

/** Every signature of a PDF, in file order: its ByteRange, the CMS in /Contents and the bytes it covers. */
export function signaturesOf(pdf: Uint8Array): PdfSignature[] {
  const buf = Buffer.from(pdf);
  const raw = buf.toString('latin1');
  const out: PdfSignature[] = [];
  for (const m of raw.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const [a, b, c, d] = m.slice(1).map(Number) as [number, number, number, number];
    const bytes = Buffer.from(raw.slice(a + b + 1, c - 1), 'hex');
    const length = asn1js.fromBER(new Uint8Array(bytes).buffer).offset;
    out.push({
      byteRange: [a, b, c, d],
      cms: bytes.subarray(0, length),
      signedBytes: Buffer.concat([buf.subarray(a, a + b), buf.subarray(c, c + d)]),
    });
  }
  return out;
}

/** The signature-time-stamp token (DER) and the signature value of a CMS. */
export function timestampOf(cms: Uint8Array): { token: Buffer; signatureValue: Buffer } {
  const ci = pkijs.ContentInfo.fromBER(new Uint8Array(cms).buffer);
  const sd = new pkijs.SignedData({ schema: ci.content });
  const si = sd.signerInfos[0]!;
  const attr = si.unsignedAttrs?.attributes.find((a) => a.type === OID.timeStampToken);
  assert.ok(attr, 'the CMS carries a signature-time-stamp');
  return { token: Buffer.from(attr.values[0]!.toBER(false)), signatureValue: Buffer.from(si.signature.valueBlock.valueHexView) };
}
