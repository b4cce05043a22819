/** The signature validator: the public surface of sealing/validation. */
export { validatePdf, MAX_PDF_BYTES, ValidationInputError, type ValidateOptions } from './validate.js';
export { LABELS, VERDICTS, verdict, type Lang } from './messages.js';
export type * from './types.js';
export { reportText } from './text.js';
export { readableName } from './names.js';
