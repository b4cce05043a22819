/** Copying a secret to the clipboard and saving it as a text file, with the outcome announced. */
import { button, icon } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import { saveFile } from '../publicApi.js';
import { copyToClipboard } from '../views/copy.js';

/** A button that copies `text()`; the result is announced through `announce`. */
export function copyButton(s: Strings, label: string, text: () => string, announce: (message: string) => void): HTMLButtonElement {
  return button([icon('clipboard'), label], 'secondary', () => copyToClipboard(s, text(), announce));
}

/** A button that saves `text()` as a plain-text file called `filename`. */
export function downloadButton(label: string, filename: string, text: () => string): HTMLButtonElement {
  return button(label, 'secondary', () => {
    saveFile({ blob: new Blob([text()], { type: 'text/plain;charset=utf-8' }), filename, sha256: null });
  });
}
