/** The /DSS of a PDF as DER: certificates, CRLs and OCSP responses (ETSI EN 319 142-1 §5.4). */
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
