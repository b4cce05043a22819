import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { toArrayBuffer } from '@tawqi/shared/cms';

/**
 * An operator's RFC 3161 TSA (TAWQI_TSA_URL): POST a TimeStampReq (application/timestamp-query) and
 * return its TimeStampResp after checking that it is granted and answers this request (same message
 * imprint, same nonce). The token's signature is checked by whoever embeds it against the TSA's chain.
 */

export const EXTERNAL_TSA_TIMEOUT_MS = 15_000;

export class ExternalTsaError extends Error {}

export async function requestExternalTimestamp(
  url: string,
  imprint: pkijs.MessageImprint,
  opts: { nonce?: asn1js.Integer; certReq: boolean },
  timeoutMs = EXTERNAL_TSA_TIMEOUT_MS,
): Promise<Uint8Array> {
  // A nonce ties the answer to this request even when the caller gave none.
  const nonce = opts.nonce ?? asn1js.Integer.fromBigInt(BigInt(`0x${randomBytes(8).toString('hex')}`));
  const req = new pkijs.TimeStampReq({ version: 1, messageImprint: imprint, nonce, certReq: opts.certReq });
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: Buffer.from(req.toSchema().toBER(false)),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new ExternalTsaError(`TSA ${url} unreachable: ${(err as Error).message}`);
  }
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new ExternalTsaError(`TSA ${url} answered HTTP ${res.status}`);
  let resp: pkijs.TimeStampResp;
  try {
    resp = pkijs.TimeStampResp.fromBER(toArrayBuffer(body));
  } catch {
    throw new ExternalTsaError(`TSA ${url} did not answer with a TimeStampResp`);
  }
  const status = resp.status.status;
  if ((status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) || !resp.timeStampToken) {
    const text = resp.status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    throw new ExternalTsaError(`TSA ${url} refused (status ${status}${text ? `: ${text}` : ''})`);
  }
  const signed = new pkijs.SignedData({ schema: resp.timeStampToken.content });
  const eContent = signed.encapContentInfo.eContent;
  if (!eContent) throw new ExternalTsaError(`TSA ${url} sent a token without TSTInfo`);
  const tst = pkijs.TSTInfo.fromBER(eContent.getValue());
  const sameImprint =
    tst.messageImprint.hashAlgorithm.algorithmId === imprint.hashAlgorithm.algorithmId &&
    Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView).equals(
      Buffer.from(imprint.hashedMessage.valueBlock.valueHexView),
    );
  if (!sameImprint) throw new ExternalTsaError(`TSA ${url} time-stamped another message imprint`);
  if (!tst.nonce || tst.nonce.toBigInt() !== nonce.toBigInt()) throw new ExternalTsaError(`TSA ${url} did not return the request's nonce`);
  return body;
}
