/**
 * The first page of a PDF drawn on a canvas, with PDF.js (pdfjs-dist, bundled): the template
 * editor's preview of the final PDF. Its worker is a file of the console's own bundle
 * (console/build.mjs copies it to /console/assets/pdf.worker-<version>.js), so the page's CSP stays
 * script-src 'self'; eval is off (isEvalSupported: false) and no font face is added.
 */
import { getDocument, GlobalWorkerOptions, version } from 'pdfjs-dist';

GlobalWorkerOptions.workerSrc = `/console/assets/pdf.worker-${version}.js`;

/** Draw page 1 of `pdf` on `canvas`, `cssWidth` CSS pixels wide (sharp on high-density screens). */
export async function drawFirstPage(pdf: Uint8Array, canvas: HTMLCanvasElement, cssWidth: number): Promise<void> {
  // disableFontFace: glyphs are drawn as outlines, exactly where the PDF puts them. Through a font
  // face the browser would shape and reorder the already shaped, visually ordered Arabic glyphs.
  const doc = await getDocument({ data: pdf, isEvalSupported: false, useSystemFonts: false, disableFontFace: true }).promise;
  try {
    const page = await doc.getPage(1);
    const unit = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale: (cssWidth / unit.width) * Math.min(window.devicePixelRatio || 1, 2) });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    await page.render({ canvas, viewport }).promise;
  } finally {
    await doc.destroy();
  }
}
