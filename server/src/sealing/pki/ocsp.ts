import { createHash, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { algorithmId, HASHES, OID_OCSP_BASIC, OID_OCSP_NONCE, OID_SHA1, parseCertificate, toArrayBuffer } from '@tawqi/shared/cms';
import { normaliseSerialHex } from './encoding.js';
import { signatureAlgorithmFor, signWithKey } from './keys.js';
import type { Pki } from './pki.js';
import { REASON_CODES, type Revocation } from './revocation.js';

/**
 * OCSP responder for the built-in CA (RFC 6960), signed by the delegated responder certificate
 * (EKU OCSPSigning, id-pkix-ocsp-nocheck), ecdsa-with-SHA256, responder named by key hash, the
 * responder certificate included. Status per serial: revoked, good (issued by this CA), else unknown;
 * a CertID naming another issuer is unknown too. thisUpdate = producedAt = the clock's time,
 * nextUpdate one day later. A request nonce is echoed.
 */

export const OCSP_VALIDITY_MS = 86400_000;

/**
 * `fn` of a certificate's DER, kept for the last certificate seen: parsing a certificate with pkijs
 * costs about a millisecond, and the CA and responder certificates change only when re-issued.
 */
function lastParsed<T>(fn: (der: Uint8Array) => T): (der: Uint8Array) => T {
  let last: { der: Buffer; value: T } | null = null;
  return (der) => {
    if (last?.der.equals(der)) return last.value;
    const value = fn(der);
    last = { der: Buffer.from(der), value };
    return value;
  };
}

/** OCSPResponseStatus values (RFC 6960 §4.2.1). */
const STATUS = { successful: 0, malformedRequest: 1, internalError: 2 } as const;

export class OcspError extends Error {}

/** Answer a DER OCSPRequest (POST body, or the decoded GET path) with a DER OCSPResponse. */
export async function respondToOcspRequest(pki: Pki, der: Uint8Array): Promise<Uint8Array> {
  let req: pkijs.OCSPRequest;
  try {
    req = pkijs.OCSPRequest.fromBER(toArrayBuffer(der));
  } catch {
    return errorResponse(STATUS.malformedRequest);
  }
  const list = req.tbsRequest.requestList;
  if (list.length === 0) return errorResponse(STATUS.malformedRequest);
  const nonce = req.tbsRequest.requestExtensions?.find((e) => e.extnID === OID_OCSP_NONCE);
  try {
    return await signedResponse(
      pki,
      list.map((r) => r.reqCert),
      nonce ? new Uint8Array(nonce.extnValue.valueBlock.valueHexView) : null,
    );
  } catch {
    return errorResponse(STATUS.internalError);
  }
}

/**
 * A fresh, signed OCSP response for a certificate the built-in CA issued (CertID with SHA-1, the
 * hash every verifier computes), e.g. to embed in a PDF's DSS without an HTTP round trip.
 */
export async function ocspResponseFor(pki: Pki, certificate: Uint8Array): Promise<Uint8Array> {
  const cert = new X509Certificate(Buffer.from(certificate));
  const ca = caCertificate(pki.ca.certificate);
  const isCa = Buffer.from(cert.raw).equals(Buffer.from(ca.raw));
  if (isCa || !cert.checkIssued(ca) || !cert.verify(ca.publicKey)) throw new OcspError('the certificate was not issued by the built-in CA');
  const parsed = parseCertificate(certificate);
  const ids = caIdentity(pki.ca.certificate);
  const certId = new pkijs.CertID({
    hashAlgorithm: algorithmId(OID_SHA1, true),
    issuerNameHash: new asn1js.OctetString({ valueHex: toArrayBuffer(ids.nameHash(OID_SHA1)) }),
    issuerKeyHash: new asn1js.OctetString({ valueHex: toArrayBuffer(ids.keyHash(OID_SHA1)) }),
    serialNumber: parsed.serialNumber,
  });
  return signedResponse(pki, [certId], null);
}

const caCertificate = lastParsed((der) => new X509Certificate(Buffer.from(der)));

/** The CA's name and key hashes (what a CertID names), per hash OID. */
const caIdentity = lastParsed((der) => {
  const ca = parseCertificate(der);
  const nameDer = new Uint8Array(ca.subject.toSchema().toBER(false));
  const keyBits = new Uint8Array(ca.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
  const hash = (oid: string, data: Uint8Array) => new Uint8Array(createHash(HASHES[oid]!.node).update(data).digest());
  return { nameHash: (oid: string) => hash(oid, nameDer), keyHash: (oid: string) => hash(oid, keyBits) };
});

/** The responder certificate (included in each response) and its key's SHA-1 (the responder id). */
const responderOf = lastParsed((der) => {
  const certificate = parseCertificate(der);
  const keyHash = createHash('sha1').update(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
  return { certificate, keyHash };
});

type CertStatus = { kind: 'good' } | { kind: 'revoked'; revocation: Revocation } | { kind: 'unknown' };

async function statusOf(
  pki: Pki,
  certId: pkijs.CertID,
  ids: ReturnType<typeof caIdentity>,
  revocations: Map<string, Revocation>,
): Promise<CertStatus> {
  const oid = certId.hashAlgorithm.algorithmId;
  if (!HASHES[oid]) return { kind: 'unknown' };
  const sameIssuer =
    Buffer.from(certId.issuerNameHash.valueBlock.valueHexView).equals(ids.nameHash(oid)) &&
    Buffer.from(certId.issuerKeyHash.valueBlock.valueHexView).equals(ids.keyHash(oid));
  if (!sameIssuer) return { kind: 'unknown' };
  const serial = normaliseSerialHex(Buffer.from(certId.serialNumber.valueBlock.valueHexView).toString('hex'));
  const revocation = revocations.get(serial);
  if (revocation) return { kind: 'revoked', revocation };
  return (await pki.storage.isIssued(serial)) ? { kind: 'good' } : { kind: 'unknown' };
}

function certStatusSchema(status: CertStatus): asn1js.BaseBlock {
  switch (status.kind) {
    case 'good':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: new ArrayBuffer(0) });
    case 'unknown':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 }, valueHex: new ArrayBuffer(0) });
    case 'revoked':
      return new asn1js.Constructed({
        idBlock: { tagClass: 3, tagNumber: 1 },
        value: [
          new asn1js.GeneralizedTime({ valueDate: new Date(status.revocation.revoked_at * 1000) }),
          new asn1js.Constructed({
            idBlock: { tagClass: 3, tagNumber: 0 },
            value: [new asn1js.Enumerated({ value: REASON_CODES[status.revocation.reason] })],
          }),
        ],
      });
  }
}

async function signedResponse(pki: Pki, certIds: pkijs.CertID[], nonce: Uint8Array | null): Promise<Uint8Array> {
  await pki.maintain();
  const responder = pki.ocsp;
  const now = new Date(Math.floor(pki.clock.nowMs() / 1000) * 1000);
  const ids = caIdentity(pki.ca.certificate);
  const revocations = await pki.storage.revocations();
  const { certificate: responderCert, keyHash } = responderOf(responder.certificate);
  const statuses = await Promise.all(certIds.map((certID) => statusOf(pki, certID, ids, revocations)));

  const data = new pkijs.ResponseData({
    responderID: new asn1js.OctetString({ valueHex: toArrayBuffer(keyHash) }),
    producedAt: now,
    responses: certIds.map(
      (certID, i) =>
        new pkijs.SingleResponse({
          certID,
          certStatus: certStatusSchema(statuses[i]!),
          thisUpdate: now,
          nextUpdate: new Date(now.getTime() + OCSP_VALIDITY_MS),
        }),
    ),
  });
  if (nonce) data.responseExtensions = [new pkijs.Extension({ extnID: OID_OCSP_NONCE, extnValue: toArrayBuffer(nonce) })];
  const tbs = new Uint8Array(data.toSchema(true).toBER(false));
  data.tbsView = tbs;
  const alg = signatureAlgorithmFor(responder.privateKey);
  const basic = new pkijs.BasicOCSPResponse({
    tbsResponseData: data,
    signatureAlgorithm: algorithmId(alg.oid, alg.nullParams),
    signature: new asn1js.BitString({ valueHex: toArrayBuffer(signWithKey(responder.privateKey, tbs)) }),
    certs: [responderCert],
  });
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: STATUS.successful }),
    responseBytes: new pkijs.ResponseBytes({
      responseType: OID_OCSP_BASIC,
      response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }),
    }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

function errorResponse(status: number): Uint8Array {
  return new Uint8Array(new pkijs.OCSPResponse({ responseStatus: new asn1js.Enumerated({ value: status }) }).toSchema().toBER(false));
}
