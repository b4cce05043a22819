/**
 * What the agent offers for signing: from the certificates and key objects a scan found on each
 * token, those with a signing key usage (digitalSignature or nonRepudiation), valid now, not a CA,
 * with an RSA or EC P-256/P-384 key that is on the token. The rest are kept with the reasons they
 * are not offered (for `tawqi-agent tokens` and the tests), never sent to a page.
 */
import { X509Certificate, createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { CertificateInfo, TokenInfo } from '@tawqi/shared';
import { OID_BASIC_CONSTRAINTS, OID_KEY_USAGE } from '@tawqi/shared/cms';
import type { RawToken, ScanResult } from './pkcs11/backend.js';
import { CKF_LOGIN_REQUIRED } from './pkcs11/constants.js';
import { pinStateFromFlags } from './pkcs11/flags.js';
import type { KeyType } from './pkcs11/mechanisms.js';

export const KEY_USAGE_NAMES = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;

export type NotOfferedReason =
  'no_signing_key_usage' | 'expired' | 'not_yet_valid' | 'ca_certificate' | 'unsupported_key' | 'no_key_on_token' | 'unreadable';

export interface CertificateEntry {
  info: CertificateInfo;
  der: Uint8Array;
  chain: Uint8Array[];
  slot: string;
  /** CKA_ID (hex) shared by the certificate and its private key. */
  keyId: string;
  keyType: KeyType;
  offered: boolean;
  reasons: NotOfferedReason[];
}

export const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export function tokenInfo(raw: RawToken): TokenInfo {
  return {
    slot: raw.slot,
    module: raw.module,
    label: raw.label,
    manufacturer: raw.manufacturer,
    model: raw.model,
    serial: raw.serial,
    pin: pinStateFromFlags(raw.flags),
  };
}

interface Parsed {
  /** Hex SHA-256 of the DER (computed once, when parsed). */
  sha256: string;
  node: X509Certificate;
  keyUsage: string[] | null;
  isCa: boolean;
}

/** Parsed certificates by SHA-256, and chains by leaf + pool: a listing re-reads the same few certificates. */
const parsedCache = new Map<string, Parsed | null>();
const chainCache = new Map<string, Uint8Array[]>();
const CACHE_LIMIT = 512;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

function parse(der: Uint8Array): Parsed | null {
  const key = sha256Hex(der);
  if (parsedCache.has(key)) return parsedCache.get(key) ?? null;
  return remember(parsedCache, key, parseUncached(der, key));
}

function parseUncached(der: Uint8Array, sha256: string): Parsed | null {
  try {
    const node = new X509Certificate(der);
    const asn = asn1js.fromBER(der);
    if (asn.offset === -1) return null;
    const cert = new pkijs.Certificate({ schema: asn.result });
    let keyUsage: string[] | null = null;
    let isCa = false;
    for (const ext of cert.extensions ?? []) {
      if (ext.extnID === OID_KEY_USAGE) {
        const parsed = asn1js.fromBER(ext.extnValue.getValue());
        const bits = parsed.result instanceof asn1js.BitString ? parsed.result.valueBlock.valueHexView : new Uint8Array(0);
        keyUsage = KEY_USAGE_NAMES.filter((_, i) => (((bits[i >> 3] ?? 0) >> (7 - (i & 7))) & 1) === 1);
      } else if (ext.extnID === OID_BASIC_CONSTRAINTS) {
        isCa = ext.parsedValue instanceof pkijs.BasicConstraints ? ext.parsedValue.cA === true : false;
      }
    }
    return { sha256, node, keyUsage, isCa };
  } catch {
    return null;
  }
}

/** "CN=a\nO=b" (Node's form) → "CN=a, O=b". */
const oneLine = (dn: string): string => dn.split('\n').filter(Boolean).join(', ');
const commonName = (dn: string): string | null =>
  dn
    .split('\n')
    .find((l) => l.startsWith('CN='))
    ?.slice(3) ?? null;

function keyOf(node: X509Certificate): { keyType: KeyType; bits: number; curve?: string } | null {
  const key = node.publicKey;
  if (key.asymmetricKeyType === 'rsa') return { keyType: 'rsa', bits: key.asymmetricKeyDetails?.modulusLength ?? 0 };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return { keyType: 'ec', bits: 256, curve: 'P-256' };
    if (curve === 'secp384r1') return { keyType: 'ec', bits: 384, curve: 'P-384' };
  }
  return null;
}

/** The issuers of `leaf` found among `pool`, leaf-first, not including the leaf. */
function chainOf(leaf: X509Certificate, pool: { node: X509Certificate; der: Uint8Array }[]): Uint8Array[] {
  const chain: Uint8Array[] = [];
  let current = leaf;
  for (let depth = 0; depth < 8; depth++) {
    if (current.checkIssued(current) && current.verify(current.publicKey)) break; // self-signed root
    const issuer = pool.find((c) => c.node !== current && current.checkIssued(c.node) && current.verify(c.node.publicKey));
    if (!issuer || chain.some((d) => Buffer.compare(Buffer.from(d), Buffer.from(issuer.der)) === 0)) break;
    chain.push(issuer.der);
    current = issuer.node;
  }
  return chain;
}

/** Every certificate on every scanned token, with whether it is offered and why not. */
export function analyzeCertificates(scan: ScanResult, now: Date): CertificateEntry[] {
  const out: CertificateEntry[] = [];
  for (const token of scan.tokens) {
    const certs = (token.certificates ?? []).map((c) => ({ raw: c, parsed: parse(c.der) }));
    const pool = certs.flatMap((c) => (c.parsed ? [{ node: c.parsed.node, der: c.raw.der, sha256: c.parsed.sha256 }] : []));
    const poolKey = pool.map((c) => c.sha256).join(',');
    const keys = token.keys ?? [];
    // Private keys are usually private objects, invisible before login; their public keys are not.
    const keysHidden = keys.length === 0 && (token.flags & CKF_LOGIN_REQUIRED) !== 0;
    const info = tokenInfo(token);

    for (const { raw, parsed } of certs) {
      if (!parsed) continue;
      const { node } = parsed;
      const reasons: NotOfferedReason[] = [];
      const key = keyOf(node);
      if (!key) reasons.push('unsupported_key');
      const usage = parsed.keyUsage ?? [];
      if (!usage.includes('digitalSignature') && !usage.includes('nonRepudiation')) reasons.push('no_signing_key_usage');
      const notBefore = new Date(node.validFrom);
      const notAfter = new Date(node.validTo);
      if (now < notBefore) reasons.push('not_yet_valid');
      if (now > notAfter) reasons.push('expired');
      if (parsed.isCa) reasons.push('ca_certificate');
      const hasKey = raw.id !== '' && (keys.some((k) => k.id === raw.id) || keysHidden);
      if (!hasKey) reasons.push('no_key_on_token');

      const chainKey = `${parsed.sha256}:${poolKey}`;
      const chain = chainCache.get(chainKey) ?? remember(chainCache, chainKey, chainOf(node, pool));
      const name = commonName(node.subject) ?? oneLine(node.subject);
      out.push({
        info: {
          cert_sha256: parsed.sha256,
          certificate: Buffer.from(raw.der).toString('base64'),
          chain: chain.map((d) => Buffer.from(d).toString('base64')),
          subject: oneLine(node.subject),
          name,
          issuer: oneLine(node.issuer),
          serial: node.serialNumber.toLowerCase(),
          not_before: Math.floor(notBefore.getTime() / 1000),
          not_after: Math.floor(notAfter.getTime() / 1000),
          key_type: key?.keyType ?? 'rsa',
          key_bits: key?.bits ?? 0,
          ...(key?.curve ? { curve: key.curve } : {}),
          key_usage: usage,
          token: info,
        },
        der: raw.der,
        chain,
        slot: token.slot,
        keyId: raw.id,
        keyType: key?.keyType ?? 'rsa',
        offered: reasons.length === 0,
        reasons,
      });
    }
  }
  return out;
}
