/**
 * The /verify page's no-script form: a multipart/form-data body with one file part, read into memory
 * with busboy under the same 25 MB limit as the raw body. Nothing is written to disk.
 */
import busboy from 'busboy';
import type { Request } from 'express';

export type FormUpload = { file: Buffer } | { error: 'too_large' | 'no_file' };

export const isMultipart = (req: Request): boolean => req.is('multipart/form-data') === 'multipart/form-data';

/** The one file part of a multipart body (at most `limit` bytes); resolves once the whole body is read. */
export function readFormFile(req: Request, limit: number): Promise<FormUpload> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      // One file part of at most `limit` bytes; a few small fields at most (the form has none).
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: limit, fields: 4, fieldSize: 1024, parts: 6 } });
    } catch {
      resolve({ error: 'no_file' }); // a multipart content type without a boundary
      return;
    }
    const chunks: Buffer[] = [];
    let seen = false;
    let truncated = false;
    parser.on('file', (_name, stream) => {
      seen = true;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        truncated = true;
      });
    });
    // A malformed multipart body is bad input, like one without a file part.
    parser.on('error', () => {
      req.unpipe(parser);
      resolve({ error: 'no_file' });
    });
    parser.on('close', () => {
      if (truncated) resolve({ error: 'too_large' });
      else if (!seen || chunks.length === 0) resolve({ error: 'no_file' });
      else resolve({ file: Buffer.concat(chunks) });
    });
    req.pipe(parser);
  });
}
