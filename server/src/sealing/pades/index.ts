/** PAdES baseline B-T / B-LT / B-LTA signing: the public surface of sealing/pades. */
export { appendSignature, completePades, completePadesFromCms, preparePades, signPades } from './pades.js';
export { appendDss } from './dss.js';
export {
  appendDocumentTimestamp,
  lastDocumentTimestamp,
  DOC_TIMESTAMP_PLACEHOLDER_BYTES,
  type DocumentTimestampOptions,
  type EmbeddedTimestamp,
} from './documentTimestamp.js';
export { buildSignedAttributes } from './signature.js';
export { MIN_PLACEHOLDER_BYTES, SUBFILTER } from './placeholder.js';
export {
  PadesError,
  type CompletePadesOptions,
  type PadesErrorCode,
  type PadesKeyAlgorithm,
  type PadesLevel,
  type PadesPlaceholderOptions,
  type PadesSigner,
  type PreparePadesOptions,
  type PreparedPades,
  type RevocationData,
  type SignPadesOptions,
  type TimestampFn,
} from './types.js';
