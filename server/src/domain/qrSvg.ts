import QRCode from 'qrcode';

/**
 * A QR code as an SVG document (the `qrcode` package): paths and attributes only, no script and no
 * inline style, so the console can show it under its strict Content-Security-Policy. Error
 * correction M (15 %) is what authenticator apps read from a screen without trouble.
 */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
