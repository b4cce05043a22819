import type { IncomingMessage } from 'node:http';

/** How much of a receiver's answer each attempt keeps (issue 15 point 4: the delivery log's response excerpt). */
export const RESPONSE_EXCERPT_BYTES = 500;

/**
 * The length of the longest prefix of `bytes` that ends on a UTF-8 character boundary: a
 * multi-byte character the cap cut in two is left out whole rather than kept as a broken tail.
 */
export function utf8Boundary(bytes: Uint8Array): number {
  let i = bytes.length;
  // Step back over at most three continuation bytes (10xxxxxx) to the lead byte of the last character.
  let back = 0;
  while (back < 3 && i - back - 1 >= 0 && (bytes[i - back - 1]! & 0xc0) === 0x80) back++;
  const lead = i - back - 1;
  if (lead < 0) return i;
  const b = bytes[lead]!;
  const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  if (need > back + 1) i = lead;
  return i;
}

/** C0 and C1 controls and DEL, except tab and newline: shown as U+FFFD, never written to a log or a page as they are. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * The excerpt of a body's first bytes: decoded as UTF-8 (invalid sequences become U+FFFD), cut on a
 * character boundary when the body went on past the cap, CRLF line ends as LF, other controls
 * replaced.
 */
export function excerptText(head: Buffer, truncated: boolean): string {
  const bytes = truncated ? head.subarray(0, utf8Boundary(head)) : head;
  return bytes.toString('utf8').replace(/\r\n/g, '\n').replace(CONTROLS, '\uFFFD');
}

/**
 * Read at most `cap` bytes of a response body, then stop: the response is destroyed once the cap is
 * reached (its socket is not kept alive; what the receiver still sends is never read). `done` is
 * called once, with the excerpt of what came: at the end of the body, at the cap, or when the
 * response closes early (an error, the attempt's deadline).
 */
export function readExcerpt(res: IncomingMessage, cap: number, done: (excerpt: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (truncated: boolean) => {
    if (finished) return;
    finished = true;
    done(excerptText(Buffer.concat(chunks, size).subarray(0, cap), truncated));
  };
  res.on('data', (chunk: Buffer) => {
    if (finished) return;
    chunks.push(chunk);
    size += chunk.length;
    if (size >= cap) {
      finish(size > cap || !res.complete);
      res.destroy();
    }
  });
  res.on('end', () => finish(false));
  res.on('close', () => finish(!res.complete));
  res.on('error', () => finish(true));
}
