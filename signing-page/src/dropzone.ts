/** A file input and a panel that also takes a dropped file (the public pages' file pickers). */
export function onFileChosen(panel: HTMLElement, zone: HTMLElement, input: HTMLInputElement, use: (file: File) => void): void {
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) use(file);
  });
  // A file dropped elsewhere on the page is not opened in its place (the visitor would lose the page).
  for (const type of ['dragover', 'drop'] as const) document.addEventListener(type, (e) => e.preventDefault());
  // The whole panel takes the drop; dragover must be cancelled for a drop to happen at all.
  panel.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('is-over');
  });
  panel.addEventListener('dragleave', (e) => {
    if (!panel.contains(e.relatedTarget as Node | null)) zone.classList.remove('is-over');
  });
  panel.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('is-over');
    const file = e.dataTransfer?.files[0];
    if (file) use(file);
  });
}
