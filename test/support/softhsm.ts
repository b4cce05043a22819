/**
 * A real PKCS#11 token for the agent's tests: SoftHSM2 with a per-run SOFTHSM2_CONF and token
 * directory in a temp dir, keys generated ON the token with pkcs11-tool, certificates made with
 * openssl by a test PKI (root CA in a file, issuing CA also on the token as the chain certificate)
 * and imported with pkcs11-tool.
 *
 * The token "Tawqi Test Token" (user PIN 123456) holds:
 *   id 01  RSA-2048   cert "Test Signer RSA"      nonRepudiation                 → offered
 *   id 02  EC P-256   cert "Test Signer EC"       digitalSignature, nonRepudiation → offered
 *   id 05  EC P-384   cert "Test Signer P-384"    digitalSignature               → offered
 *   id 03  EC P-256   cert "Test Encryption"      keyAgreement only              → not offered (no signing usage)
 *   id 04  EC P-256   cert "Test Signer Expired"  digitalSignature, 2020–2021    → not offered (expired)
 *   id c0  —          cert "Tawqi Test Issuing CA" (chain certificate, no key)   → not offered (CA)
 * and, with `strangerCa`:
 *   id 06  EC P-256   cert "Test Signer Stranger CA" digitalSignature, nonRepudiation, issued by
 *                     "Stranger Root CA" (a file, trusted by nobody) → offered; a server refuses it
 * The expired certificate's key is made by openssl and imported (openssl 3.0 cannot backdate a
 * certificate for a key it does not hold); every other key never leaves the token.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SOFTHSM_MODULE = process.env.TAWQI_SOFTHSM_MODULE ?? '/usr/lib/softhsm/libsofthsm2.so';
export const TEST_PIN = '123456';
export const TEST_SO_PIN = '12345678';
export const TEST_TOKEN_LABEL = 'Tawqi Test Token';

export type TestCertName = 'rsa' | 'ec' | 'ec384' | 'noUsage' | 'expired' | 'issuingCa';

export interface TestCert {
  /** CKA_ID, hex. */
  id: string;
  label: string;
  der: Buffer;
  pem: string;
  /** Hex SHA-256 of the DER: the agent's cert_sha256. */
  sha256: string;
}

export interface SoftHsmOptions {
  /** The `slots.mechanisms` line of softhsm2.conf: an allow-list such as 'CKM_RSA_PKCS,CKM_RSA_PKCS_KEY_PAIR_GEN' (SoftHSM 2.6 ignores '-' removals). */
  mechanisms?: string;
  /** Also a signing certificate from a CA outside the test PKI (the agent offers it; a server trusting the test root refuses it). */
  strangerCa?: boolean;
}

export interface SoftHsm {
  dir: string;
  conf: string;
  module: string;
  /** process.env plus SOFTHSM2_CONF: give it to child processes. */
  env: NodeJS.ProcessEnv;
  pin: string;
  tokenLabel: string;
  /** The root CA (not on the token): the trust anchor for `openssl cms -verify -CAfile`. */
  rootPemFile: string;
  certs: Record<TestCertName, TestCert> & { stranger?: TestCert };
  /** Another initialized token, empty (a token plugged in). */
  addToken(label: string): void;
  /** Deletes a token (a token pulled out). */
  removeToken(label: string): void;
  cleanup(): void;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): string {
  try {
    return execFileSync(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

function derTlv(tag: number, body: Buffer): Buffer {
  const len = body.length;
  const head = len < 0x80 ? [len] : len < 0x100 ? [0x81, len] : [0x82, len >> 8, len & 0xff];
  return Buffer.concat([Buffer.from([tag, ...head]), body]);
}

/** SubjectPublicKeyInfo DER of the EC key `id` from `pkcs11-tool -O` output (EC_POINT is a DER OCTET STRING). */
function ecSpkiFromListing(all: string, id: string): Buffer {
  const listing = all.split(/(?=Public Key Object)/).find((block) => new RegExp(`ID:\\s+${id}\\b`).test(block)) ?? '';
  const point = /EC_POINT:\s+([0-9a-f]+)/i.exec(listing)?.[1];
  const params = /EC_PARAMS:\s+([0-9a-f]+)/i.exec(listing)?.[1];
  if (!point || !params) throw new Error(`no EC_POINT/EC_PARAMS in: ${listing}`);
  const octets = Buffer.from(point, 'hex');
  const lenByte = octets[1] ?? 0;
  const raw = octets.subarray(lenByte < 0x80 ? 2 : 2 + (lenByte & 0x7f));
  const algorithm = derTlv(0x30, Buffer.concat([Buffer.from('06072a8648ce3d0201', 'hex'), Buffer.from(params, 'hex')]));
  return derTlv(0x30, Buffer.concat([algorithm, derTlv(0x03, Buffer.concat([Buffer.from([0]), raw]))]));
}

const LEAF_EXT = (usage: string) =>
  `[ext]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,${usage}\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n`;

/**
 * Sets up the token and, unless `setProcessEnv` is false, points this process's SOFTHSM2_CONF at it
 * (the agent's token worker loads SoftHSM2 in this process).
 */
export function createSoftHsm(options: SoftHsmOptions = {}, setProcessEnv = true): SoftHsm {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-softhsm-'));
  const tokens = path.join(dir, 'tokens');
  const pki = path.join(dir, 'pki');
  mkdirSync(tokens);
  mkdirSync(pki);
  const conf = path.join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    [
      `directories.tokendir = ${tokens}`,
      'objectstore.backend = file',
      'log.level = ERROR',
      'slots.removable = true',
      `slots.mechanisms = ${options.mechanisms ?? 'ALL'}`,
      'library.reset_on_fork = false',
      '',
    ].join('\n'),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, SOFTHSM2_CONF: conf };
  if (setProcessEnv) process.env.SOFTHSM2_CONF = conf;

  const p11 = (...args: string[]) =>
    run('pkcs11-tool', ['--module', SOFTHSM_MODULE, '--token-label', TEST_TOKEN_LABEL, '--login', '--pin', TEST_PIN, ...args], env, pki);
  const ssl = (...args: string[]) => run('openssl', args, env, pki);
  /** A self-signed P-256 root CA: `<name>.key` and `<name>.pem` in the PKI folder. */
  const selfSignedRoot = (name: string, subject: string) =>
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-subj',
      subject,
      '-days',
      '3650',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );

  run('softhsm2-util', ['--init-token', '--free', '--label', TEST_TOKEN_LABEL, '--pin', TEST_PIN, '--so-pin', TEST_SO_PIN], env, dir);

  // The test PKI: root (file only) → issuing CA (also on the token).
  selfSignedRoot('root', '/CN=Tawqi Test Root CA/O=Tawqi Tests');
  ssl(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'int.key',
    '-out',
    'int.csr',
    '-subj',
    '/CN=Tawqi Test Issuing CA/O=Tawqi Tests',
  );
  writeFileSync(
    path.join(pki, 'int.ext'),
    '[ext]\nbasicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n',
  );
  ssl(
    'x509',
    '-req',
    '-in',
    'int.csr',
    '-CA',
    'root.pem',
    '-CAkey',
    'root.key',
    '-set_serial',
    '2',
    '-days',
    '3650',
    '-extfile',
    'int.ext',
    '-extensions',
    'ext',
    '-out',
    'int.pem',
  );

  let serial = 100;
  const certs = {} as Record<TestCertName | 'stranger', TestCert>;
  const importCert = (name: TestCertName | 'stranger', id: string, label: string, pemFile: string): void => {
    ssl('x509', '-in', pemFile, '-outform', 'DER', '-out', `${name}.der`);
    p11('--write-object', `${name}.der`, '--type', 'cert', '--id', id, '--label', label);
    const der = readFileSync(path.join(pki, `${name}.der`));
    certs[name] = {
      id,
      label,
      der,
      pem: readFileSync(path.join(pki, pemFile), 'utf8'),
      sha256: createHash('sha256').update(der).digest('hex'),
    };
  };
  const onTokenKey = (
    name: TestCertName | 'stranger',
    id: string,
    keyType: string,
    label: string,
    usage: string,
    ca = { pem: 'int.pem', key: 'int.key' },
  ): void => {
    p11('--keypairgen', '--key-type', keyType, '--id', id, '--label', label);
    if (keyType.startsWith('rsa')) {
      p11('--read-object', '--type', 'pubkey', '--id', id, '-o', `${name}.pub.der`);
    } else {
      // pkcs11-tool cannot export every EC public key (P-384 fails here): build the SPKI from EC_POINT/EC_PARAMS.
      writeFileSync(path.join(pki, `${name}.pub.der`), ecSpkiFromListing(p11('-O', '--type', 'pubkey'), id));
    }
    ssl('pkey', '-pubin', '-inform', 'DER', '-in', `${name}.pub.der`, '-out', `${name}.pub.pem`);
    writeFileSync(path.join(pki, `${name}.ext`), LEAF_EXT(usage));
    ssl(
      'x509',
      '-new',
      '-subj',
      `/CN=${label}/O=Tawqi Tests`,
      '-force_pubkey',
      `${name}.pub.pem`,
      '-CA',
      ca.pem,
      '-CAkey',
      ca.key,
      '-set_serial',
      String(serial++),
      '-days',
      '365',
      '-extfile',
      `${name}.ext`,
      '-extensions',
      'ext',
      '-out',
      `${name}.pem`,
    );
    importCert(name, id, label, `${name}.pem`);
  };

  onTokenKey('rsa', '01', 'rsa:2048', 'Test Signer RSA', 'nonRepudiation');
  onTokenKey('ec', '02', 'EC:prime256v1', 'Test Signer EC', 'digitalSignature,nonRepudiation');
  onTokenKey('ec384', '05', 'EC:secp384r1', 'Test Signer P-384', 'digitalSignature');
  onTokenKey('noUsage', '03', 'EC:prime256v1', 'Test Encryption', 'keyAgreement');

  // Expired: 2020-01-01 … 2021-01-01, signed by the issuing CA with `openssl ca`, key imported.
  ssl(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'expired.key',
    '-out',
    'expired.csr',
    '-subj',
    '/CN=Test Signer Expired/O=Tawqi Tests',
  );
  mkdirSync(path.join(pki, 'newcerts'));
  writeFileSync(path.join(pki, 'index.txt'), '');
  writeFileSync(path.join(pki, 'serial'), '0200\n');
  writeFileSync(
    path.join(pki, 'ca.cnf'),
    '[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=newcerts\nserial=serial\ndefault_md=sha256\npolicy=p\nunique_subject=no\ncopy_extensions=none\n[p]\ncommonName=supplied\norganizationName=optional\n',
  );
  writeFileSync(path.join(pki, 'expired.ext'), LEAF_EXT('digitalSignature'));
  ssl(
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'int.pem',
    '-keyfile',
    'int.key',
    '-in',
    'expired.csr',
    '-notext',
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20210101000000Z',
    '-extfile',
    'expired.ext',
    '-extensions',
    'ext',
    '-out',
    'expired.pem',
  );
  ssl('pkey', '-in', 'expired.key', '-outform', 'DER', '-out', 'expired.key.der');
  ssl('pkey', '-in', 'expired.key', '-pubout', '-outform', 'DER', '-out', 'expired.pub.der');
  p11('--write-object', 'expired.key.der', '--type', 'privkey', '--id', '04', '--label', 'Test Signer Expired', '--usage-sign');
  p11('--write-object', 'expired.pub.der', '--type', 'pubkey', '--id', '04', '--label', 'Test Signer Expired');
  rmSync(path.join(pki, 'expired.key'));
  rmSync(path.join(pki, 'expired.key.der'));
  importCert('expired', '04', 'Test Signer Expired', 'expired.pem');

  importCert('issuingCa', 'c0', 'Tawqi Test Issuing CA', 'int.pem');
  if (options.strangerCa) {
    selfSignedRoot('stranger', '/CN=Stranger Root CA/O=Elsewhere');
    onTokenKey('stranger', '06', 'EC:prime256v1', 'Test Signer Stranger CA', 'digitalSignature,nonRepudiation', {
      pem: 'stranger.pem',
      key: 'stranger.key',
    });
    rmSync(path.join(pki, 'stranger.key'));
  }
  for (const secret of ['root.key', 'int.key']) rmSync(path.join(pki, secret));

  return {
    dir,
    conf,
    module: SOFTHSM_MODULE,
    env,
    pin: TEST_PIN,
    tokenLabel: TEST_TOKEN_LABEL,
    rootPemFile: path.join(pki, 'root.pem'),
    certs,
    addToken(label: string) {
      run('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', TEST_PIN, '--so-pin', TEST_SO_PIN], env, dir);
    },
    removeToken(label: string) {
      run('softhsm2-util', ['--delete-token', '--token', label], env, dir);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
