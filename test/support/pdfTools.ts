/**
 * Real PDF tools for tests: poppler (pdftotext, pdftoppm, pdfimages, pdfinfo, pdffonts), qpdf and mupdf (mutool).
 * Each helper writes the PDF to a temporary file, runs the tool and returns what it printed.
 * A missing tool fails with the command that installs it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const INSTALL = 'apt-get install -y poppler-utils qpdf mupdf-tools';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(tool: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error(`${tool} is not installed (it comes with: ${INSTALL})`));
        return;
      }
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run fn with the PDF written to a temporary file; the file is removed afterwards. */
async function withPdfFile<T>(pdf: Uint8Array, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tawqi-pdf-'));
  try {
    const file = path.join(dir, 'document.pdf');
    await writeFile(file, pdf);
    return await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function mustRun(tool: string, args: string[]): Promise<string> {
  const result = await run(tool, args);
  if (result.code !== 0) throw new Error(`${tool} ${args.join(' ')} failed (exit ${result.code}): ${result.stderr || result.stdout}`);
  return result.stdout;
}

export interface PageRange {
  first?: number;
  last?: number;
}

/**
 * `pdftotext -layout` (or poppler's plain reading order with layout: false) of the whole PDF or a page
 * range, optionally of one area of each page (points from the top left: poppler's -x -y -W -H).
 */
export async function pdfToText(
  pdf: Uint8Array,
  options: PageRange & { layout?: boolean; area?: { x: number; y: number; width: number; height: number } } = {},
): Promise<string> {
  return withPdfFile(pdf, (file) => {
    const args = options.layout === false ? [] : ['-layout'];
    if (options.first) args.push('-f', String(options.first));
    if (options.last) args.push('-l', String(options.last));
    const a = options.area;
    if (a)
      args.push(
        '-x',
        String(Math.floor(a.x)),
        '-y',
        String(Math.floor(a.y)),
        '-W',
        String(Math.ceil(a.width)),
        '-H',
        String(Math.ceil(a.height)),
      );
    return mustRun('pdftotext', [...args, '-enc', 'UTF-8', file, '-']);
  });
}

/** `qpdf --check`: ok when qpdf finds no errors and no warnings (exit 0); out is what it printed. */
export async function qpdfCheck(pdf: Uint8Array): Promise<{ ok: boolean; out: string }> {
  return withPdfFile(pdf, async (file) => {
    const result = await run('qpdf', ['--check', file]);
    return { ok: result.code === 0, out: `${result.stdout}${result.stderr}` };
  });
}

/** `pdftoppm -png -r <dpi> -f <page> -l <page>`: writes one page as a PNG file at out (a path ending in .png). */
export async function renderPagePng(pdf: Uint8Array, out: string, options: { page?: number; dpi?: number } = {}): Promise<string> {
  const page = String(options.page ?? 1);
  const prefix = out.replace(/\.png$/i, '');
  await withPdfFile(pdf, (file) =>
    mustRun('pdftoppm', ['-png', '-r', String(options.dpi ?? 60), '-f', page, '-l', page, '-singlefile', file, prefix]),
  );
  return `${prefix}.png`;
}

export interface RgbImage {
  width: number;
  height: number;
  /** Row-major RGB bytes, 3 per pixel. */
  data: Buffer;
}

/** `pdftoppm -ppm`: one page as RGB pixels, to look at colours (what text extraction cannot see). */
export async function renderPageRgb(pdf: Uint8Array, options: { page?: number; dpi?: number } = {}): Promise<RgbImage> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tawqi-ppm-'));
  try {
    const page = String(options.page ?? 1);
    const prefix = path.join(dir, 'page');
    await withPdfFile(pdf, (file) =>
      mustRun('pdftoppm', ['-r', String(options.dpi ?? 40), '-f', page, '-l', page, '-singlefile', file, prefix]),
    );
    return parsePnm(await readFile(`${prefix}.ppm`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface PdfImageEntry {
  page: number;
  num: number;
  /** image, smask, mask, stencil */
  type: string;
  width: number;
  height: number;
  color: string;
  object: number;
}

/** `pdfimages -list`: every image drawn, per page (an image used twice is listed twice, same object). */
export async function pdfImageList(pdf: Uint8Array): Promise<PdfImageEntry[]> {
  const out = await withPdfFile(pdf, (file) => mustRun('pdfimages', ['-list', file]));
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const c = line.trim().split(/\s+/);
      return {
        page: Number(c[0]),
        num: Number(c[1]),
        type: c[2]!,
        width: Number(c[3]),
        height: Number(c[4]),
        color: c[5]!,
        object: Number(c[10]),
      };
    });
}

/** `pdfimages` (raw PPM output): the decoded pixels of every image, in the order of pdfImageList, as RGB. */
export async function pdfImagePixels(pdf: Uint8Array): Promise<RgbImage[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tawqi-img-'));
  try {
    await withPdfFile(pdf, (file) => mustRun('pdfimages', [file, path.join(dir, 'img')]));
    const names = (await readdir(dir)).filter((n) => /^img-\d+\.p[bgp]m$/.test(n)).sort();
    return Promise.all(names.map(async (name) => parsePnm(await readFile(path.join(dir, name)))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A binary PPM (P6) or PGM (P5, spread to RGB). */
function parsePnm(file: Buffer): RgbImage {
  const header = /^(P[56])\s+(\d+)\s+(\d+)\s+255\s/.exec(file.toString('latin1', 0, 64));
  if (!header) throw new Error('not a binary PPM/PGM');
  const width = Number(header[2]);
  const height = Number(header[3]);
  const body = file.subarray(header[0].length);
  if (header[1] === 'P6') return { width, height, data: body };
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) data.fill(body[i]!, 3 * i, 3 * i + 3);
  return { width, height, data };
}

/** `pdfinfo`: the fields it prints (Pages, Producer, Title, Page size, …). */
export async function pdfInfo(pdf: Uint8Array): Promise<Record<string, string>> {
  const out = await withPdfFile(pdf, (file) => mustRun('pdfinfo', ['-enc', 'UTF-8', file]));
  const info: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const at = line.indexOf(':');
    if (at > 0) info[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return info;
}

export async function pdfPageCount(pdf: Uint8Array): Promise<number> {
  return Number((await pdfInfo(pdf)).Pages);
}

export interface PdfFont {
  name: string;
  type: string;
  embedded: boolean;
  subset: boolean;
  unicode: boolean;
}

/** `pdffonts`: one entry per font object. */
export async function pdfFonts(pdf: Uint8Array): Promise<PdfFont[]> {
  const out = await withPdfFile(pdf, (file) => mustRun('pdffonts', [file]));
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      // name type... encoding emb sub uni object-id generation
      const cols = line.trim().split(/\s+/);
      const [emb, sub, uni] = cols.slice(-5, -2);
      return { name: cols[0]!, type: cols.slice(1, -6).join(' '), embedded: emb === 'yes', subset: sub === 'yes', unicode: uni === 'yes' };
    });
}

/** One line of extracted text with its vertical extent (points from the top of the page). */
export interface ExtractedLine {
  page: number;
  top: number;
  bottom: number;
  text: string;
}

const XML_ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };

/** mupdf's structured text (`mutool draw -F stext`, what `-F txt` prints), one entry per line. */
export async function mupdfLines(pdf: Uint8Array): Promise<ExtractedLine[]> {
  const out = await withPdfFile(pdf, (file) => mustRun('mutool', ['draw', '-q', '-F', 'stext', '-o', '-', file]));
  const lines: ExtractedLine[] = [];
  out
    .split('<page ')
    .slice(1)
    .forEach((page, index) => {
      for (const m of page.matchAll(/<line bbox="[\d.-]+ ([\d.-]+) [\d.-]+ ([\d.-]+)"[^>]*>([\s\S]*?)<\/line>/g)) {
        let text = '';
        for (const c of m[3]!.matchAll(/<char [^>]*c="([^"]*)"/g)) {
          text += c[1]!.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (_e, name: string) =>
            name.startsWith('#')
              ? String.fromCodePoint(Number(name.startsWith('#x') ? `0x${name.slice(2)}` : name.slice(1)))
              : (XML_ENTITIES[name] ?? ''),
          );
        }
        lines.push({ page: index + 1, top: Number(m[1]), bottom: Number(m[2]), text });
      }
    });
  return lines;
}
