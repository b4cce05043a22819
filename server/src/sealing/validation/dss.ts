/** The /DSS of a PDF as DER: certificates, CRLs and OCSP responses (ETSI EN 319 142-1 §5.4). */
import { X509Crl } from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFStream, decodePDFRawStream, type PDFDocument } from 'pdf-lib';

export interface DssContent {
  certificates: Uint8Array[];
  crls: Uint8Array[];
  ocsps: Uint8Array[];
}

const EMPTY: DssContent = { certificates: [], crls: [], ocsps: [] };

function streams(dss: PDFDict, key: string): Uint8Array[] {
  const array = dss.lookup(PDFName.of(key));
  if (!(array instanceof PDFArray)) return [];
  return array.asArray().flatMap((item) => {
    const stream = dss.context.lookup(item);
    if (stream instanceof PDFRawStream) return [decodePDFRawStream(stream).decode()];
    return stream instanceof PDFStream ? [stream.getContents()] : [];
  });
}

export function readDss(doc: PDFDocument): DssContent {
  const dss = doc.catalog.lookup(PDFName.of('DSS'));
  if (!(dss instanceof PDFDict)) return EMPTY;
  return { certificates: streams(dss, 'Certs'), crls: streams(dss, 'CRLs'), ocsps: streams(dss, 'OCSPs') };
}

export const parseCrls = (ders: readonly Uint8Array[]): X509Crl[] =>
  ders.flatMap((der) => {
    try {
      return [new X509Crl(der)];
    } catch {
      return [];
    }
  });

export interface OcspStatus {
  /** Hash algorithm OID, issuer name hash and serial of the certificate the response is about. */
  hashAlgorithm: string;
  issuerNameHash: Buffer;
  serial: Buffer;
  /** When it was revoked, or null for good/unknown. */
  revokedAt: Date | null;
}

/** The single responses of basic OCSP responses (RFC 6960): which certificate each names and whether it is revoked. */
export function ocspStatuses(ders: readonly Uint8Array[]): OcspStatus[] {
  return ders.flatMap((der) => {
    try {
      const response = pkijs.OCSPResponse.fromBER(der);
      const bytes = response.responseBytes?.response.valueBlock.valueHexView;
      if (!bytes) return [];
      return pkijs.BasicOCSPResponse.fromBER(bytes).tbsResponseData.responses.map((single) => {
        const status = single.certStatus as asn1js.Constructed;
        const revoked = status.idBlock.tagNumber === 1 ? (status.valueBlock.value[0] as asn1js.GeneralizedTime | undefined) : undefined;
        return {
          hashAlgorithm: single.certID.hashAlgorithm.algorithmId,
          issuerNameHash: Buffer.from(single.certID.issuerNameHash.valueBlock.valueHexView),
          serial: Buffer.from(single.certID.serialNumber.valueBlock.valueHexView),
          revokedAt: revoked ? revoked.toDate() : null,
        };
      });
    } catch {
      return [];
    }
  });
}
