/**
 * Page 1 of the PDF being signed, as the agent shows it beside the consent question: a PNG made
 * with poppler's `pdftoppm` (about 900 px on its longer side), or the PDF itself when pdftoppm is
 * not installed or fails. The caller sends whichever it gets with its Content-Type.
 */
import { execFile } from 'node:child_process';

const PDFTOPPM = 'pdftoppm';
const TIMEOUT_MS = 15_000;
const MAX_PNG_BYTES = 16 * 1024 * 1024;

export interface Preview {
  contentType: 'image/png' | 'application/pdf';
  body: Uint8Array;
}

export function firstPagePng(pdf: Uint8Array): Promise<Uint8Array | null> {
  return new Promise((resolve) => {
    const child = execFile(
      PDFTOPPM,
      ['-png', '-f', '1', '-l', '1', '-scale-to', '900', '-singlefile', '-'],
      { encoding: 'buffer', timeout: TIMEOUT_MS, maxBuffer: MAX_PNG_BYTES },
      (err, stdout) => {
        const png = stdout as unknown as Buffer;
        resolve(!err && png.subarray(0, 4).toString('latin1') === '\x89PNG' ? new Uint8Array(png) : null);
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  });
}

export async function previewOf(pdf: Uint8Array): Promise<Preview> {
  const png = await firstPagePng(pdf);
  return png ? { contentType: 'image/png', body: png } : { contentType: 'application/pdf', body: pdf };
}
