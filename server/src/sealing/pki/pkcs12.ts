import 'reflect-metadata';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as x509 from '@peculiar/x509';
import * as pkijs from 'pkijs';
import { toArrayBuffer } from '@tawqi/shared/cms';
import { keyMatchesSpki } from './keys.js';

/**
 * Read an operator's seal from a PKCS#12 (.p12/.pfx) file with pkijs: the MAC is checked with the
 * password, encrypted bags are opened (PBES2: PBKDF2 + AES-CBC, which is what `openssl pkcs12 -export`
 * writes by default since OpenSSL 3). Legacy RC2/3DES encryption (`-legacy`) is not supported: convert
 * such a file first (`openssl pkcs12 -in old.p12 -legacy -nodes | openssl pkcs12 -export -out new.p12`).
 */

const BAG_KEY = '1.2.840.113549.1.12.10.1.1';
const BAG_SHROUDED_KEY = '1.2.840.113549.1.12.10.1.2';
const BAG_CERT = '1.2.840.113549.1.12.10.1.3';
const CERT_X509 = '1.2.840.113549.1.9.22.1';
const CT_ENCRYPTED_DATA = '1.2.840.113549.1.7.6';

export interface Pkcs12Seal {
  privateKey: KeyObject;
  /** The certificate of `privateKey`, DER. */
  certificate: Uint8Array;
  /** Its issuers found in the file, nearest first, DER. */
  chain: Uint8Array[];
}

export class Pkcs12Error extends Error {}

export async function loadPkcs12(file: string, password: string, nowMs = Date.now()): Promise<Pkcs12Seal> {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (err) {
    throw new Pkcs12Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const pwd = toArrayBuffer(new TextEncoder().encode(password));
  const keys: KeyObject[] = [];
  const certs: X509Certificate[] = [];
  try {
    const pfx = pkijs.PFX.fromBER(toArrayBuffer(raw));
    await pfx.parseInternalValues({ password: pwd, checkIntegrity: true });
    const safe = pfx.parsedValue?.authenticatedSafe;
    if (!safe) throw new Error('no authenticated safe');
    await safe.parseInternalValues({
      safeContents: safe.safeContents.map((c) => (c.contentType === CT_ENCRYPTED_DATA ? { password: pwd } : {})),
    });
    const contents = (safe.parsedValue as { safeContents: { value: pkijs.SafeContents }[] }).safeContents;
    for (const { value } of contents) {
      for (const bag of value.safeBags) {
        if (bag.bagId === BAG_KEY) keys.push(pkcs8Key(bag.bagValue as pkijs.PrivateKeyInfo));
        if (bag.bagId === BAG_SHROUDED_KEY) {
          const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
          const encrypted = new pkijs.EncryptedData({
            encryptedContentInfo: new pkijs.EncryptedContentInfo({
              contentEncryptionAlgorithm: shrouded.encryptionAlgorithm,
              encryptedContent: shrouded.encryptedData,
            }),
          });
          const pkcs8 = await encrypted.decrypt({ password: pwd });
          keys.push(createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }));
        }
        if (bag.bagId === BAG_CERT) {
          const certBag = bag.bagValue as pkijs.CertBag;
          if (certBag.certId !== CERT_X509) continue;
          const parsed = certBag.parsedValue as pkijs.Certificate | undefined;
          const der = parsed ? parsed.toSchema().toBER(false) : (certBag.certValue as unknown as { getValue(): ArrayBuffer }).getValue();
          certs.push(new X509Certificate(Buffer.from(der)));
        }
      }
    }
  } catch (err) {
    throw new Pkcs12Error(`cannot open ${file} (wrong password, or not a PKCS#12 file with PBES2 encryption): ${(err as Error).message}`);
  }
  if (keys.length !== 1) throw new Pkcs12Error(`${file} must hold exactly one private key (found ${keys.length})`);
  const key = keys[0]!;
  const leaf = certs.find((c) => keyMatchesSpki(key, new Uint8Array(c.publicKey.export({ format: 'der', type: 'spki' }))));
  if (!leaf) throw new Pkcs12Error(`${file} holds no certificate for its private key`);
  checkSealCertificate(file, leaf, nowMs);
  return { privateKey: key, certificate: new Uint8Array(leaf.raw), chain: chainOf(leaf, certs).map((c) => new Uint8Array(c.raw)) };
}

function pkcs8Key(info: pkijs.PrivateKeyInfo): KeyObject {
  return createPrivateKey({ key: Buffer.from(info.toSchema().toBER(false)), format: 'der', type: 'pkcs8' });
}

/** From the leaf upwards, each next certificate the one that issued the previous; stops at a self-signed one. */
function chainOf(leaf: X509Certificate, pool: X509Certificate[]): X509Certificate[] {
  const chain: X509Certificate[] = [];
  let current = leaf;
  while (current.issuer !== current.subject && chain.length < 10) {
    const issuer = pool.find((c) => c !== current && !chain.includes(c) && current.checkIssued(c) && current.verify(c.publicKey));
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

function checkSealCertificate(file: string, cert: X509Certificate, nowMs: number): void {
  if (new Date(cert.validTo).getTime() < nowMs)
    throw new Pkcs12Error(`the certificate in ${file} expired on ${new Date(cert.validTo).toISOString()}`);
  if (new Date(cert.validFrom).getTime() > nowMs)
    throw new Pkcs12Error(`the certificate in ${file} is not valid before ${new Date(cert.validFrom).toISOString()}`);
  if (cert.publicKey.asymmetricKeyType !== 'ec' && cert.publicKey.asymmetricKeyType !== 'rsa') {
    throw new Pkcs12Error(`the key in ${file} must be RSA or ECDSA (found ${cert.publicKey.asymmetricKeyType ?? 'unknown'})`);
  }
  const ku = new x509.X509Certificate(new Uint8Array(cert.raw)).getExtension(x509.KeyUsagesExtension);
  if (ku && !(ku.usages & (x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation))) {
    throw new Pkcs12Error(`the certificate in ${file} allows neither digitalSignature nor nonRepudiation`);
  }
}
