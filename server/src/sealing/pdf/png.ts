/**
 * Signature images: a PNG as an image XObject, embedded once per document.
 *
 * pdf-lib decodes and re-compresses every PNG in JavaScript (about 11 ms for a 600×200 RGBA
 * signature). Here the common cases use node:zlib: 8-bit grey or RGB data passes through as is
 * (PDF understands PNG predictors), 8-bit grey+alpha or RGBA is inflated, unfiltered and split into
 * colour and soft mask. Anything else (16-bit, interlaced, palette, fewer bits) goes to pdf-lib.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { PDFName, PDFRawStream, type PDFDocument, type PDFRef } from 'pdf-lib';

export interface EmbeddedImage {
  readonly ref: PDFRef;
  readonly width: number;
  readonly height: number;
}

interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
  idat: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function readPng(bytes: Uint8Array): PngInfo {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 33 || !buf.subarray(0, 8).equals(SIGNATURE)) throw new Error('signature image: not a PNG');
  const idat: Buffer[] = [];
  let header: Omit<PngInfo, 'idat'> | null = null;
  let at = 8;
  while (at + 8 <= buf.length) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    if (data.length !== length) throw new Error('signature image: truncated PNG');
    if (type === 'IHDR') {
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8]!, colorType: data[9]!, interlace: data[12]! };
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (!header || header.width === 0 || header.height === 0 || idat.length === 0) throw new Error('signature image: PNG without image data');
  return { ...header, idat: Buffer.concat(idat) };
}

/** Undo the PNG row filters (None, Sub, Up, Average, Paeth); returns the pixel rows without filter bytes. */
function unfilter(data: Buffer, width: number, height: number, bpp: number): Buffer {
  const stride = width * bpp;
  if (data.length < (stride + 1) * height) throw new Error('signature image: PNG data too short');
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const up = row - stride;
    // One tight loop per filter: the pixel data of a 600×200 signature is half a megabyte.
    if (filter === 0 || (filter === 2 && y === 0)) {
      data.copy(out, row, src, src + stride);
    } else if (filter === 1) {
      for (let x = 0; x < bpp; x++) out[row + x] = data[src + x]!;
      for (let x = bpp; x < stride; x++) out[row + x] = (data[src + x]! + out[row + x - bpp]!) & 0xff;
    } else if (filter === 2) {
      for (let x = 0; x < stride; x++) out[row + x] = (data[src + x]! + out[up + x]!) & 0xff;
    } else if (filter === 3) {
      for (let x = 0; x < stride; x++) {
        const a = x >= bpp ? out[row + x - bpp]! : 0;
        const b = y > 0 ? out[up + x]! : 0;
        out[row + x] = (data[src + x]! + ((a + b) >> 1)) & 0xff;
      }
    } else if (filter === 4) {
      for (let x = 0; x < stride; x++) {
        const a = x >= bpp ? out[row + x - bpp]! : 0;
        const b = y > 0 ? out[up + x]! : 0;
        const c = x >= bpp && y > 0 ? out[up + x - bpp]! : 0;
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - 2 * c);
        out[row + x] = (data[src + x]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
    } else {
      throw new Error(`signature image: bad PNG filter ${filter}`);
    }
  }
  return out;
}

interface ImageEntries {
  Width: number;
  Height: number;
  ColorSpace: PDFName;
  DecodeParms?: { Predictor: number; Colors: number; BitsPerComponent: number; Columns: number };
  SMask?: PDFRef;
}

function imageStream(pdf: PDFDocument, contents: Uint8Array, entries: ImageEntries): PDFRef {
  const ctx = pdf.context;
  const dict = ctx.obj({ Type: 'XObject', Subtype: 'Image', BitsPerComponent: 8, Filter: 'FlateDecode', ...entries });
  return ctx.register(PDFRawStream.of(dict, contents));
}

export async function embedPng(pdf: PDFDocument, bytes: Uint8Array): Promise<EmbeddedImage> {
  const png = readPng(bytes);
  const { width, height, colorType } = png;
  if (png.bitDepth !== 8 || png.interlace !== 0 || ![0, 2, 4, 6].includes(colorType)) {
    const image = await pdf.embedPng(bytes);
    return { ref: image.ref, width: image.width, height: image.height };
  }
  const colors = colorType === 0 || colorType === 4 ? 1 : 3;
  const colorSpace = PDFName.of(colors === 1 ? 'DeviceGray' : 'DeviceRGB');
  if (colorType === 0 || colorType === 2) {
    const ref = imageStream(pdf, png.idat, {
      Width: width,
      Height: height,
      ColorSpace: colorSpace,
      DecodeParms: { Predictor: 15, Colors: colors, BitsPerComponent: 8, Columns: width },
    });
    return { ref, width, height };
  }
  const bpp = colors + 1;
  const pixels = unfilter(inflateSync(png.idat), width, height, bpp);
  const color = Buffer.alloc(width * height * colors);
  const alpha = Buffer.alloc(width * height);
  for (let p = 0, c = 0, i = 0; p < alpha.length; p++, i += bpp) {
    for (let k = 0; k < colors; k++) color[c++] = pixels[i + k]!;
    alpha[p] = pixels[i + colors]!;
  }
  const smask = imageStream(pdf, deflateSync(alpha), { Width: width, Height: height, ColorSpace: PDFName.of('DeviceGray') });
  const ref = imageStream(pdf, deflateSync(color), { Width: width, Height: height, ColorSpace: colorSpace, SMask: smask });
  return { ref, width, height };
}
