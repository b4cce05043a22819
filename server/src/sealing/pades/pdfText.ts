/** PDF text strings and dates for signature dictionaries (ISO 32000-1 §7.9.2, §7.9.4). */
import { PDFHexString, PDFString } from 'pdf-lib';

const isPlainAscii = (text: string): boolean => /^[\x20-\x7e]*$/.test(text);

const escapeLiteral = (text: string): string => text.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * The body of a PDF literal string — what goes between "(" and ")" — for any text: printable ASCII
 * escaped as it is, anything else as UTF-16BE with a byte-order mark in octal escapes (pure ASCII,
 * so it survives any writer that copies the characters as bytes, e.g. pdf-lib's PDFString.of).
 */
export function literalStringBody(text: string): string {
  if (isPlainAscii(text)) return escapeLiteral(text);
  let body = '\\376\\377';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    body += `\\${(unit >> 8).toString(8).padStart(3, '0')}\\${(unit & 0xff).toString(8).padStart(3, '0')}`;
  }
  return body;
}

/** A pdf-lib text string object: literal for printable ASCII, UTF-16BE hex otherwise. */
export function textString(text: string): PDFString | PDFHexString {
  return isPlainAscii(text) ? PDFString.of(escapeLiteral(text)) : PDFHexString.fromText(text);
}

/** D:YYYYMMDDHHmmSSZ in UTC (what /M holds). */
export function pdfDate(date: Date): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return (
    `D:${pad(date.getUTCFullYear(), 4)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`
  );
}
