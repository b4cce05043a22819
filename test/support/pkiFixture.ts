/**
 * A throwaway PKI for PAdES tests, made with the `openssl` CLI in a temporary directory — fully
 * independent of the server's own PKI code:
 *
 *   root CA (RSA-2048) ─ issuing CA (P-256) ─┬─ seal certificate (P-256 or RSA-2048; KU digitalSignature,
 *                                             │  nonRepudiation; no EKU, so NSS accepts it for signing)
 *                                             ├─ TSA certificate (critical EKU timeStamping)
 *                                             └─ OCSP responder (EKU OCSPSigning, ocsp-nocheck)
 *
 * plus an RFC 3161 TSA (`openssl ts -reply -token_out`, one process per stamp), a CRL from each CA
 * (`openssl ca -gencrl`), an OCSP response for the seal certificate (`openssl ocsp -index … -respout`),
 * an NSS database trusting the root (for `pdfsig -nssdir`), and PDFs made with pdf-lib.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PadesSigner, RevocationData, TimestampFn } from '../../server/src/sealing/pades/index.js';

const execFileAsync = promisify(execFile);

export type SealKeyType = 'ec' | 'rsa';

export interface IssuedCertificate {
  der: Uint8Array;
  pemFile: string;
  keyFile: string;
}

export interface PkiFixture {
  dir: string;
  root: IssuedCertificate;
  issuingCa: IssuedCertificate;
  seal: IssuedCertificate;
  tsa: IssuedCertificate;
  ocspResponder: IssuedCertificate;
  /** PEM file of the root CA (the trust anchor for openssl -CAfile). */
  caFile: string;
  /** PEM file with the issuing CA and the TSA certificate (openssl -untrusted). */
  untrustedFile: string;
  /** The seal as a PadesSigner (node:crypto signs in process). */
  signer: PadesSigner;
  /** An RFC 3161 TSA: `openssl ts -reply`. */
  timestamp: TimestampFn;
  /** How many tokens the TSA issued. */
  stamps: () => number;
  /** CRLs of both CAs and an OCSP response for the seal certificate, plus the responder certificate. */
  revocation: RevocationData;
  /** `sql:DIR` of an NSS database trusting the root CA, for `pdfsig -nssdir`. */
  nssDir: string;
  close(): void;
}

const OPENSSL_CNF = `
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused

[v3_root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[v3_issuing]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[v3_seal]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[v3_tsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[v3_ocsp]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = OCSPSigning
noCheck = ignored
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[ca]
default_ca = CA_issuing
[CA_issuing]
database = issuing-index.txt
crlnumber = issuing-crlnumber
default_md = sha256
default_crl_days = 7
[CA_root]
database = root-index.txt
crlnumber = root-crlnumber
default_md = sha256
default_crl_days = 30

[tsa]
default_tsa = tsa_config
[tsa_config]
serial = tsa-serial
crypto_device = builtin
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

const KEY_ARGS: Record<'rsa' | 'ec', string[]> = {
  rsa: ['-newkey', 'rsa:2048'],
  ec: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
};

/** YYMMDDHHMMSSZ, the date format of an openssl CA index. */
const indexDate = (date: Date): string => date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';

const opensslIn = (dir: string, args: string[]): string =>
  execFileSync('openssl', args, { cwd: dir, encoding: 'latin1', stdio: ['ignore', 'pipe', 'pipe'] });

/** A new key and certificate `name`.key/.pem in `dir`, issued by `issuer`.pem/.key with an openssl.cnf profile. */
function opensslIssue(
  dir: string,
  c: { name: string; subject: string; key: 'rsa' | 'ec'; issuer: string; serial: string; days: number; profile: string },
): void {
  const { name } = c;
  opensslIn(dir, [
    ...['req', '-new', ...KEY_ARGS[c.key], '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`],
    ...['-subj', c.subject, '-config', 'openssl.cnf'],
  ]);
  opensslIn(dir, [
    ...['x509', '-req', '-in', `${name}.csr`, '-CA', `${c.issuer}.pem`, '-CAkey', `${c.issuer}.key`, '-set_serial', c.serial],
    ...['-days', String(c.days), '-sha256', '-extfile', 'openssl.cnf', '-extensions', c.profile, '-out', `${name}.pem`],
  ]);
}

/**
 * The current CRL (DER) of one of the fixture's CAs in `dir` (after `openssl ca -revoke`, it lists the
 * revoked), signed by that CA — or, with `signer: 'forged'`, by the key of forgeIssuingCa's look-alike.
 */
export function fixtureCrl(dir: string, ca: 'issuing' | 'root', signer: string = ca): Uint8Array {
  opensslIn(dir, [
    'ca',
    '-gencrl',
    '-config',
    'openssl.cnf',
    '-name',
    `CA_${ca}`,
    '-keyfile',
    `${signer}.key`,
    '-cert',
    `${signer}.pem`,
    '-out',
    `${ca}.crl.pem`,
  ]);
  opensslIn(dir, ['crl', '-in', `${ca}.crl.pem`, '-outform', 'DER', '-out', `${ca}.crl`]);
  return new Uint8Array(readFileSync(path.join(dir, `${ca}.crl`)));
}

/**
 * An OCSP response (DER) for the seal certificate in `dir`, from the issuing CA's index as it stands,
 * signed by the delegated responder — or, with `responder: 'forged-ocsp'`, by forgeIssuingCa's.
 */
export function sealOcspResponse(dir: string, responder = 'ocsp'): Uint8Array {
  const signer = ['-rsigner', `${responder}.pem`, '-rkey', `${responder}.key`, '-CA', 'issuing.pem', '-issuer', 'issuing.pem'];
  opensslIn(dir, [
    'ocsp',
    '-index',
    'issuing-index.txt',
    ...signer,
    '-cert',
    'seal.pem',
    '-respout',
    'seal.ocsp',
    '-ndays',
    '1',
    '-no_nonce',
  ]);
  return new Uint8Array(readFileSync(path.join(dir, 'seal.ocsp')));
}

/**
 * An RFC 3161 TSA in `dir` signing with `${name}.pem`/`.key` (`openssl ts -reply`, one process per
 * stamp); with `certReq` false the query does not ask for the TSA certificate and the token omits it.
 */
function opensslTsa(dir: string, name: string, certReq = true): TimestampFn {
  return async (digest) => {
    const id = `${process.pid}-${randomBytes(6).toString('hex')}`;
    const query = [
      'ts',
      '-query',
      '-digest',
      Buffer.from(digest).toString('hex'),
      '-sha256',
      ...(certReq ? ['-cert'] : []),
      '-no_nonce',
      '-out',
      `q-${id}.tsq`,
    ];
    await execFileAsync('openssl', query, { cwd: dir });
    const reply = [
      'ts',
      '-reply',
      '-config',
      'openssl.cnf',
      '-queryfile',
      `q-${id}.tsq`,
      '-signer',
      `${name}.pem`,
      '-inkey',
      `${name}.key`,
    ];
    await execFileAsync('openssl', [...reply, '-chain', 'issuing.pem', '-token_out', '-out', `t-${id}.der`], { cwd: dir });
    return new Uint8Array(readFileSync(path.join(dir, `t-${id}.der`)));
  };
}

/** The fixture's TSA in `dir`, asked without certReq: its tokens do not carry the TSA certificate. */
export const tsaWithoutCertificate = (dir: string): TimestampFn => opensslTsa(dir, 'tsa', false);

/**
 * Another TSA of the fixture in `dir`: a certificate `name` (timeStamping EKU) from the issuing CA valid
 * from now for `days` days, and its TimestampFn — a TSA whose certificate expires soon, to test what
 * proves a timestamp's existence after that.
 */
export function fixtureTsa(dir: string, name: string, days: number): { certificate: Uint8Array; timestamp: TimestampFn } {
  const serial = `0x${randomBytes(8).toString('hex')}`;
  opensslIssue(dir, { name, subject: `/O=Tawqi Tests/CN=${name}`, key: 'ec', issuer: 'issuing', serial, days, profile: 'v3_tsa' });
  const certificate = new Uint8Array(new X509Certificate(readFileSync(path.join(dir, `${name}.pem`))).raw);
  return { certificate, timestamp: opensslTsa(dir, name) };
}

/**
 * What a forger of revocation data holds, in `dir`: a self-made CA with the issuing CA's very name but a
 * key of its own (forged.pem/.key), and an OCSP responder certificate (EKU OCSPSigning) it issued
 * (forged-ocsp.pem/.key). Returns both certificates (DER), to put in a /DSS beside what they sign.
 */
export function forgeIssuingCa(dir: string): Uint8Array[] {
  const run = (args: string[]) => opensslIn(dir, [...args, '-config', 'openssl.cnf']);
  const subject = ['-subj', '/O=Tawqi Tests/CN=Tawqi Test Issuing CA'];
  run([
    'req',
    '-x509',
    '-new',
    ...KEY_ARGS.ec,
    '-nodes',
    '-keyout',
    'forged.key',
    '-out',
    'forged.pem',
    ...subject,
    '-days',
    '30',
    '-extensions',
    'v3_root',
  ]);
  opensslIssue(dir, {
    name: 'forged-ocsp',
    subject: '/CN=Forged OCSP Responder',
    key: 'ec',
    issuer: 'forged',
    serial: '7',
    days: 30,
    profile: 'v3_ocsp',
  });
  return ['forged.pem', 'forged-ocsp.pem'].map((name) => new Uint8Array(new X509Certificate(readFileSync(path.join(dir, name))).raw));
}

export function createPkiFixture(sealKey: SealKeyType): PkiFixture {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-pki-'));
  const run = (args: string[]): string =>
    execFileSync('openssl', args, { cwd: dir, encoding: 'latin1', stdio: ['ignore', 'pipe', 'pipe'] });
  const file = (name: string): string => path.join(dir, name);
  writeFileSync(file('openssl.cnf'), OPENSSL_CNF);
  for (const ca of ['issuing', 'root']) {
    writeFileSync(file(`${ca}-index.txt`), '');
    writeFileSync(file(`${ca}-crlnumber`), '1000\n');
  }
  writeFileSync(file('tsa-serial'), '01\n');

  const load = (name: string): IssuedCertificate => {
    const pem = readFileSync(file(`${name}.pem`), 'latin1');
    return { der: new Uint8Array(new X509Certificate(pem).raw), pemFile: file(`${name}.pem`), keyFile: file(`${name}.key`) };
  };
  const serial = (): string => `0x${randomBytes(12).toString('hex').replace(/^./, '4')}`;
  const issue = (name: string, subject: string, key: 'rsa' | 'ec', profile: string, issuer: string): IssuedCertificate => {
    opensslIssue(dir, { name, subject, key, issuer, serial: serial(), days: 825, profile });
    const issued = load(name);
    // Known to the issuing CA's index: openssl ocsp answers "good" from it, openssl ca lists it.
    if (issuer === 'issuing') {
      const x509 = new X509Certificate(readFileSync(issued.pemFile));
      const line = `V\t${indexDate(new Date(x509.validTo))}\t\t${x509.serialNumber.toUpperCase()}\tunknown\t${subject}\n`;
      writeFileSync(file('issuing-index.txt'), readFileSync(file('issuing-index.txt'), 'latin1') + line);
    }
    return issued;
  };

  run([
    'req',
    '-x509',
    '-new',
    ...KEY_ARGS.rsa,
    '-nodes',
    '-keyout',
    'root.key',
    '-out',
    'root.pem',
    '-subj',
    '/O=Tawqi Tests/CN=Tawqi Test Root CA',
    '-days',
    '3650',
    '-sha256',
    '-set_serial',
    serial(),
    '-config',
    'openssl.cnf',
    '-extensions',
    'v3_root',
  ]);
  const root = load('root');
  const issuingCa = issue('issuing', '/O=Tawqi Tests/CN=Tawqi Test Issuing CA', 'ec', 'v3_issuing', 'root');
  const seal = issue('seal', `/O=Tawqi Tests/CN=Tawqi Test Seal (${sealKey.toUpperCase()})`, sealKey, 'v3_seal', 'issuing');
  const tsa = issue('tsa', '/O=Tawqi Tests/CN=Tawqi Test TSA', 'ec', 'v3_tsa', 'issuing');
  const ocspResponder = issue('ocsp', '/O=Tawqi Tests/CN=Tawqi Test OCSP Responder', 'ec', 'v3_ocsp', 'issuing');

  writeFileSync(file('untrusted.pem'), readFileSync(issuingCa.pemFile, 'latin1') + readFileSync(tsa.pemFile, 'latin1'));

  // CRLs (DER) of both CAs, and an OCSP response (DER) for the seal certificate.
  const crls = (['issuing', 'root'] as const).map((ca) => fixtureCrl(dir, ca));
  const ocsp = sealOcspResponse(dir);

  // NSS database trusting the root, for pdfsig.
  const nss = file('nss');
  execFileSync('mkdir', ['-p', nss]);
  execFileSync('certutil', ['-N', '-d', `sql:${nss}`, '--empty-password']);
  execFileSync('certutil', ['-A', '-d', `sql:${nss}`, '-n', 'tawqi-test-root', '-t', 'CT,C,C', '-i', root.pemFile]);

  const privateKey = createPrivateKey(readFileSync(seal.keyFile));
  const signer: PadesSigner = {
    certificate: seal.der,
    chain: [issuingCa.der, root.der],
    keyAlgorithm: sealKey === 'rsa' ? 'RSA' : 'ECDSA-P256',
    // RSA: PKCS#1 v1.5; ECDSA: DER (node's defaults).
    sign: async (data) => new Uint8Array(sign('sha256', data, privateKey)),
  };

  let stamps = 0;
  const stampBy = opensslTsa(dir, 'tsa');
  const timestamp: TimestampFn = (digest) => {
    stamps += 1;
    return stampBy(digest);
  };

  return {
    dir,
    root,
    issuingCa,
    seal,
    tsa,
    ocspResponder,
    caFile: root.pemFile,
    untrustedFile: file('untrusted.pem'),
    signer,
    timestamp,
    stamps: () => stamps,
    revocation: { certificates: [ocspResponder.der], crls, ocspResponses: [ocsp] },
    nssDir: `sql:${nss}`,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A PDF made with pdf-lib: `pages` pages of text. pdf-lib's default save writes object streams and
 * a cross-reference stream; `classicXref` saves without them (a classic xref table).
 */
export async function makeTestPdf(pages = 1, options: { classicXref?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle('Tawqi test contract');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= pages; p += 1) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Service agreement - page ${p} of ${pages}`, { x: 50, y: 780, size: 18, font });
    for (let line = 0; line < 40; line += 1) {
      page.drawText(`Clause ${p}.${line + 1}: the parties agree to the terms set out in this clause.`, {
        x: 50,
        y: 740 - line * 16,
        size: 10,
        font,
      });
    }
  }
  return doc.save({ useObjectStreams: !options.classicXref });
}
