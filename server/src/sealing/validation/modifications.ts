/**
 * What later incremental updates changed, compared with the revision a signature covers. Allowed
 * (ETSI EN 319 142-1 §5.4 and what PAdES LT/LTA and a further signer need): the /DSS and everything
 * under it, document timestamps and later signatures with their fields, widgets and appearances,
 * the catalog's /DSS, /AcroForm and /Extensions, the AcroForm's /Fields and /SigFlags, and a
 * page's /Annots growing by signature widgets. Anything else (page content, a new annotation, a
 * changed object) is a modification after signing.
 */
import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream, type PDFDocument, type PDFObject } from 'pdf-lib';

const CATALOG_KEYS = new Set(['DSS', 'AcroForm', 'Extensions']);
const ACROFORM_KEYS = new Set(['Fields', 'SigFlags', 'DA', 'DR']);
const PAGE_KEYS = new Set(['Annots']);
/** Keys not followed when collecting what belongs to a signature field: they lead back into the document. */
const BACK_LINKS = new Set(['P', 'Parent']);

const dictOf = (object: PDFObject | undefined): PDFDict | undefined =>
  object instanceof PDFDict ? object : object instanceof PDFStream ? object.dict : undefined;

const nameOf = (dict: PDFDict | undefined, key: string): string | undefined => {
  const value = dict?.get(PDFName.of(key));
  return value instanceof PDFName ? value.decodeText() : undefined;
};

function isSignatureObject(dict: PDFDict | undefined): boolean {
  if (!dict) return false;
  if (dict.has(PDFName.of('ByteRange'))) return true;
  if (nameOf(dict, 'FT') === 'Sig') return true;
  const parent = dict.lookup(PDFName.of('Parent'));
  return nameOf(dict, 'Subtype') === 'Widget' && parent instanceof PDFDict && nameOf(parent, 'FT') === 'Sig';
}

/** Every ref reachable from `roots` without following back links. */
function reachable(doc: PDFDocument, roots: PDFObject[]): Set<string> {
  const seen = new Set<string>();
  const visit = (object: PDFObject | undefined): void => {
    if (object instanceof PDFRef) {
      if (seen.has(object.toString())) return;
      seen.add(object.toString());
      visit(doc.context.lookup(object));
    } else if (object instanceof PDFArray) object.asArray().forEach(visit);
    else if (dictOf(object)) {
      for (const [key, value] of dictOf(object)!.entries()) if (!BACK_LINKS.has(key.decodeText())) visit(value);
    }
  };
  roots.forEach(visit);
  return seen;
}

/** The refs of everything the allowed additions consist of. */
function allowedRefs(doc: PDFDocument): Set<string> {
  const roots: PDFObject[] = [];
  for (const key of ['DSS', 'Extensions']) {
    const value = doc.catalog.get(PDFName.of(key));
    if (value) roots.push(value);
  }
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (isSignatureObject(dictOf(object))) roots.push(ref);
  }
  return reachable(doc, roots);
}

/** Keys whose values differ between two dictionaries. */
function changedKeys(before: PDFDict, after: PDFDict): string[] {
  const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
  return [...keys].filter((k) => String(before.get(PDFName.of(k))) !== String(after.get(PDFName.of(k))));
}

/** An array that only grew by allowed refs (/Fields, /Annots). */
function grewByAllowed(before: PDFArray, after: PDFArray, allowed: Set<string>): boolean {
  const old = new Set(before.asArray().map(String));
  return after.asArray().every((item) => old.has(String(item)) || (item instanceof PDFRef && allowed.has(item.toString())));
}

function changeAllowed(ref: PDFRef, before: PDFObject, after: PDFObject, doc: PDFDocument, allowed: Set<string>): boolean {
  // A signature dictionary, once written, never changes (what it says about the signer would).
  if (dictOf(before)?.has(PDFName.of('ByteRange'))) return false;
  if (allowed.has(ref.toString())) return true;
  if (before instanceof PDFArray && after instanceof PDFArray) return grewByAllowed(before, after, allowed);
  const [oldDict, newDict] = [dictOf(before), dictOf(after)];
  if (!oldDict || !newDict || before instanceof PDFStream || after instanceof PDFStream) return false;
  const keys = changedKeys(oldDict, newDict);
  const within = (set: Set<string>) => keys.every((k) => set.has(k));
  const arraysGrew = (key: string) => {
    const [a, b] = [oldDict.lookup(PDFName.of(key)), newDict.lookup(PDFName.of(key))];
    return !b || !(b instanceof PDFArray) || grewByAllowed(a instanceof PDFArray ? a : PDFArray.withContext(doc.context), b, allowed);
  };
  if (ref.toString() === String(doc.context.trailerInfo.Root)) return within(CATALOG_KEYS);
  if (nameOf(newDict, 'Type') === 'Page') return within(PAGE_KEYS) && arraysGrew('Annots');
  if (newDict.has(PDFName.of('Fields'))) return within(ACROFORM_KEYS) && arraysGrew('Fields');
  return false;
}

function describe(ref: PDFRef, object: PDFObject, isNew: boolean): string {
  const dict = dictOf(object);
  const type =
    nameOf(dict, 'Subtype') ??
    nameOf(dict, 'Type') ??
    (object instanceof PDFStream ? 'stream' : object.constructor.name.replace(/^PDF/, ''));
  return `${isNew ? 'added' : 'changed'} ${ref.objectNumber} ${ref.generationNumber} R (${type})`;
}

/** The disallowed changes of `after` (a later revision, or the whole file) against `before`. */
export function disallowedChanges(before: PDFDocument, after: PDFDocument): string[] {
  const allowed = allowedRefs(after);
  const out: string[] = [];
  for (const [ref, object] of after.context.enumerateIndirectObjects()) {
    const type = nameOf(dictOf(object), 'Type');
    if (type === 'XRef' || type === 'ObjStm') continue;
    const old = before.context.lookup(ref);
    if (old !== undefined && String(old) === String(object)) continue;
    if (old === undefined ? allowed.has(ref.toString()) : changeAllowed(ref, old, object, after, allowed)) continue;
    out.push(describe(ref, object, old === undefined));
  }
  return out;
}
