/**
 * The Unicode bidirectional algorithm (bidi-js), created once per process.
 *
 * bidi-js ships CommonJS typings with `export default`, which NodeNext reads as a namespace; the
 * module itself is the factory, so it is loaded with require and typed as that factory.
 */
import { createRequire } from 'node:module';
import type { Bidi, EmbeddingLevels } from 'bidi-js';

type BidiFactory = typeof import('bidi-js').default;

const bidiFactory = createRequire(import.meta.url)('bidi-js') as BidiFactory;

export const bidi: Bidi = bidiFactory();
export type { EmbeddingLevels };

/** The mirrored form of a character shown right to left ("(" for ")"), or the character itself. */
export function mirrored(ch: string): string {
  return bidi.getMirroredCharacter(ch) ?? ch;
}
