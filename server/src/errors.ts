import type { ErrorCode } from '@tawqi/shared';

/** A failure with a code from the shared error table; the error handler renders the envelope. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly param: string | null = null,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    /** Overrides the table's message (English detail, e.g. which parameter failed why). */
    readonly detail: { ar: string; en: string } | null = null,
  ) {
    super(code);
  }
}

export const invalidParam = (param: string, en: string, ar: string): ApiError =>
  new ApiError('parameter_invalid', param, {}, {}, { ar, en });
