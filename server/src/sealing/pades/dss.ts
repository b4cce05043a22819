/**
 * The Document Security Store (ETSI EN 319 142-1 §5.4, PAdES B-LT): certificates, CRLs and OCSP
 * responses as streams, listed in /DSS /Certs, /CRLs, /OCSPs of the catalog, appended in an
 * incremental update after the signature so the signature's ByteRange stays as it is.
 *
 * No /VRI dictionaries: they are optional in PAdES baseline and validators search /Certs, /CRLs
 * and /OCSPs directly. An existing /DSS (an earlier B-LT extension) is kept and added to.
 */
import { PDFDict, PDFName, type PDFRef } from 'pdf-lib';
import { IncrementalUpdate } from './incremental.js';
import type { RevocationData } from './types.js';

const unique = (items: Uint8Array[]): Uint8Array[] => {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = Buffer.from(item).toString('base64');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

export async function appendDss(pdf: Uint8Array, data: RevocationData): Promise<Uint8Array> {
  const update = await IncrementalUpdate.open(pdf);
  const { context } = update;
  const rootRef = update.rootRef;
  const catalog = update.catalog;

  const existing = update.resolve(catalog, rootRef, 'DSS', 'dict');
  const dss = existing.value ?? (context.obj({ Type: 'DSS' }) as PDFDict);
  const dssRef: PDFRef = existing.value && existing.ownerRef !== rootRef ? existing.ownerRef : update.allocate();

  const addStreams = (key: string, items: Uint8Array[]): void => {
    if (items.length === 0) return;
    const current = update.resolve(dss, dssRef, key, 'array');
    const array = current.value ?? context.obj([]);
    for (const item of unique(items)) {
      const ref = update.allocate();
      update.set(ref, context.flateStream(item));
      array.push(ref);
    }
    if (current.value && current.ownerRef !== dssRef) update.set(current.ownerRef, array);
    else dss.set(PDFName.of(key), array);
  };
  addStreams('Certs', data.certificates);
  addStreams('CRLs', data.crls);
  addStreams('OCSPs', data.ocspResponses);
  update.set(dssRef, dss);

  catalog.set(PDFName.of('DSS'), dssRef);
  // The ETSI extension marker (what Acrobat writes with a DSS), unless one is already there.
  const extensions = catalog.lookupMaybe(PDFName.of('Extensions'), PDFDict);
  if (!extensions) {
    catalog.set(PDFName.of('Extensions'), context.obj({ ESIC: { BaseVersion: PDFName.of('1.7'), ExtensionLevel: 5 } }));
  } else if (!extensions.has(PDFName.of('ESIC')) && catalog.get(PDFName.of('Extensions')) instanceof PDFDict) {
    extensions.set(PDFName.of('ESIC'), context.obj({ BaseVersion: PDFName.of('1.7'), ExtensionLevel: 5 }));
  }
  update.set(rootRef, catalog);
  return update.toBytes();
}
