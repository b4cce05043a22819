import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  algorithmId,
  contentTypeAttribute,
  HASHES,
  hashOid,
  messageDigestAttribute,
  normaliseOid,
  OID_CT_TST_INFO,
  OID_SIGNED_DATA,
  signedAttributesDer,
  signedData,
  signingCertificateV2Attribute,
  signingTimeAttribute,
  toArrayBuffer,
} from '@tawqi/shared/cms';
import { requestExternalTimestamp } from './externalTsa.js';
import { signatureAlgorithmFor, signWithKey } from './keys.js';
import type { Pki } from './pki.js';

/**
 * RFC 3161 time-stamping with the built-in TSA (or, when TAWQI_TSA_URL is set, through an external one).
 *
 * A token is CMS SignedData over TSTInfo { version 1, policy TSA_POLICY_OID, the requester's
 * messageImprint, a serial from TimeStampSerials, genTime = the injected clock's time (millisecond
 * precision), accuracy 1 s, the nonce when one was sent }, signed by the TSA key (ecdsa-with-SHA256)
 * with signed attributes contentType, signingTime, messageDigest and signing-certificate-v2 (ESSCertIDv2
 * of the TSA certificate). The TSA certificate is included when the request asks for it (certReq).
 */

export interface MessageImprintInput {
  /** 'SHA-256' (also 'SHA-384', 'SHA-512') or the hash OID. */
  hashAlgorithm: string;
  hashedMessage: Uint8Array;
}

export interface TimestampOptions {
  /** Echoed in the token; a bigint, or unsigned big-endian bytes. */
  nonce?: bigint | Uint8Array;
  /** Include the TSA certificate in the token (default true: embedded tokens must carry it). */
  certReq?: boolean;
}

/** PKIFailureInfo bit numbers (RFC 3161 §2.4.2). */
export const FAIL = {
  badAlg: 0,
  badRequest: 2,
  badDataFormat: 5,
  timeNotAvailable: 14,
  unacceptedPolicy: 15,
  unacceptedExtension: 16,
  systemFailure: 25,
} as const;

export class TimestampError extends Error {}

/** A granted TimeStampResp (DER) for this imprint: from the external TSA when configured, else the built-in one. */
export async function timestamp(pki: Pki, messageImprint: MessageImprintInput, options: TimestampOptions = {}): Promise<Uint8Array> {
  const imprint = messageImprintOf(messageImprint);
  if (pki.externalTsaUrl)
    return requestExternalTimestamp(pki.externalTsaUrl, imprint, { nonce: nonceOf(options.nonce), certReq: options.certReq ?? true });
  return issueTimeStamp(pki, { imprint, nonce: nonceOf(options.nonce), certReq: options.certReq ?? true });
}

/** Convenience: hash `data` with SHA-256 and time-stamp it; returns the TimeStampResp DER. */
export function timestampData(pki: Pki, data: Uint8Array, options: TimestampOptions = {}): Promise<Uint8Array> {
  return timestamp(pki, { hashAlgorithm: 'SHA-256', hashedMessage: new Uint8Array(createHash('sha256').update(data).digest()) }, options);
}

/** Answer a DER TimeStampReq (what POST /tsa receives) with a DER TimeStampResp; refusals are responses too. */
export async function respondToTimeStampQuery(pki: Pki, der: Uint8Array): Promise<Uint8Array> {
  let req: pkijs.TimeStampReq;
  try {
    req = pkijs.TimeStampReq.fromBER(toArrayBuffer(der));
  } catch {
    return rejection(FAIL.badDataFormat, 'the body is not a DER TimeStampReq');
  }
  if (req.version !== 1) return rejection(FAIL.badRequest, 'only version 1 requests are supported');
  if (req.extensions?.length) return rejection(FAIL.unacceptedExtension, 'request extensions are not supported');
  if (req.reqPolicy && normaliseOid(req.reqPolicy) !== pki.tsa.policyOid)
    return rejection(FAIL.unacceptedPolicy, `the only policy is ${pki.tsa.policyOid}`);
  const problem = imprintProblem(req.messageImprint);
  if (problem) return rejection(problem.bit, problem.text);
  try {
    return await issueTimeStamp(pki, { imprint: req.messageImprint, nonce: req.nonce, certReq: req.certReq ?? false });
  } catch {
    return rejection(FAIL.systemFailure, 'the time-stamp could not be made');
  }
}

interface Issue {
  imprint: pkijs.MessageImprint;
  nonce?: asn1js.Integer;
  certReq: boolean;
}

async function issueTimeStamp(pki: Pki, p: Issue): Promise<Uint8Array> {
  await pki.maintain();
  const tsa = pki.tsa;
  const genTime = new Date(pki.clock.nowMs());
  if (genTime.getTime() > tsa.notAfter.getTime()) throw new TimestampError('the TSA certificate has expired');
  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: tsa.policyOid,
    messageImprint: p.imprint,
    serialNumber: asn1js.Integer.fromBigInt(pki.tsaSerials.next()),
    genTime,
    accuracy: new pkijs.Accuracy({ seconds: 1 }),
    ...(p.nonce ? { nonce: p.nonce } : {}),
  });
  const tstDer = new Uint8Array(tstInfo.toSchema().toBER(false));
  const toSign = signedAttributesDer([
    contentTypeAttribute(OID_CT_TST_INFO),
    signingTimeAttribute(genTime),
    messageDigestAttribute(new Uint8Array(createHash('sha256').update(tstDer).digest())),
    signingCertificateV2Attribute(tsa.certificate, new Uint8Array(createHash('sha256').update(tsa.certificate).digest())),
  ]);
  const token = signedData({
    contentType: OID_CT_TST_INFO,
    content: tstDer,
    signerCertificate: tsa.certificate,
    signedAttributes: toSign,
    signature: signWithKey(tsa.privateKey, toSign),
    signatureAlgorithm: signatureAlgorithmFor(tsa.privateKey),
    certificates: p.certReq ? [tsa.certificate] : [],
  });
  const resp = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: new pkijs.ContentInfo({ schema: asn1js.fromBER(toArrayBuffer(token)).result }),
  });
  return new Uint8Array(resp.toSchema().toBER(false));
}

function rejection(bit: number, text: string): Uint8Array {
  const bytes = new Uint8Array(Math.floor(bit / 8) + 1);
  bytes[bytes.length - 1] = 0x80 >> (bit % 8);
  const resp = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({
      status: pkijs.PKIStatus.rejection,
      statusStrings: [new asn1js.Utf8String({ value: text })],
      failInfo: new asn1js.BitString({ valueHex: toArrayBuffer(bytes), unusedBits: 7 - (bit % 8) }),
    }),
  });
  return new Uint8Array(resp.toSchema().toBER(false));
}

function imprintProblem(imprint: pkijs.MessageImprint): { bit: number; text: string } | null {
  const hash = HASHES[imprint.hashAlgorithm.algorithmId];
  if (!hash || hash.name === 'SHA-1') return { bit: FAIL.badAlg, text: 'the hash must be SHA-256, SHA-384 or SHA-512' };
  if (imprint.hashedMessage.valueBlock.valueHexView.byteLength !== hash.length)
    return { bit: FAIL.badDataFormat, text: `a ${hash.name} digest is ${hash.length} bytes` };
  return null;
}

function messageImprintOf(input: MessageImprintInput): pkijs.MessageImprint {
  const oid = hashOid(input.hashAlgorithm);
  const imprint = new pkijs.MessageImprint({
    hashAlgorithm: algorithmId(oid ?? input.hashAlgorithm),
    hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(input.hashedMessage) }),
  });
  const problem = imprintProblem(imprint);
  if (problem) throw new TimestampError(problem.text);
  return imprint;
}

function nonceOf(nonce: bigint | Uint8Array | undefined): asn1js.Integer | undefined {
  if (nonce === undefined) return undefined;
  if (typeof nonce === 'bigint') return asn1js.Integer.fromBigInt(nonce);
  return asn1js.Integer.fromBigInt(BigInt(`0x${Buffer.from(nonce).toString('hex') || '0'}`));
}

export interface TimeStampTokenInfo {
  genTime: Date;
  /** Lowercase hex. */
  serialHex: string;
  policy: string;
  hashAlgorithm: string;
  hashedMessage: Uint8Array;
  nonce: bigint | null;
}

/** The token (ContentInfo DER) inside a granted TimeStampResp: what a CMS unsigned attribute or an evidence record embeds. */
export function tokenFromResponse(respDer: Uint8Array): Uint8Array {
  const resp = pkijs.TimeStampResp.fromBER(toArrayBuffer(respDer));
  const status = resp.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = resp.status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    throw new TimestampError(`time-stamp refused (status ${status}${text ? `: ${text}` : ''})`);
  }
  if (!resp.timeStampToken) throw new TimestampError('the response has no token');
  return new Uint8Array(resp.timeStampToken.toSchema().toBER(false));
}

/** Read TSTInfo out of a token (ContentInfo DER) or a whole TimeStampResp. Does not verify the signature. */
export function readTimeStampToken(der: Uint8Array): TimeStampTokenInfo {
  const top = asn1js.fromBER(toArrayBuffer(der)).result as asn1js.Sequence;
  const first = top.valueBlock.value[0];
  const isContentInfo = first instanceof asn1js.ObjectIdentifier && first.valueBlock.toString() === OID_SIGNED_DATA;
  const token = isContentInfo ? der : tokenFromResponse(der);
  const info = pkijs.ContentInfo.fromBER(toArrayBuffer(token));
  const signed = new pkijs.SignedData({ schema: info.content });
  const eContent = signed.encapContentInfo.eContent;
  if (!eContent) throw new TimestampError('the token has no TSTInfo');
  const tst = pkijs.TSTInfo.fromBER(eContent.getValue());
  return {
    genTime: tst.genTime,
    serialHex: tst.serialNumber.toBigInt().toString(16),
    policy: normaliseOid(tst.policy),
    hashAlgorithm: tst.messageImprint.hashAlgorithm.algorithmId,
    hashedMessage: new Uint8Array(tst.messageImprint.hashedMessage.valueBlock.valueHexView),
    nonce: tst.nonce ? tst.nonce.toBigInt() : null,
  };
}
