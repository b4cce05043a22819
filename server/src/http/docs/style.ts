/** The stylesheet of /docs, served from the server itself (/docs/assets/docs.css): no CDN, no fonts from elsewhere. */
export const DOCS_CSS = `
:root { color-scheme: light; --ink: #1f2933; --muted: #4b5563; --line: #d1d5db; --accent: #0b5c4a; --code: #f3f4f6; }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, "Noto Naskh Arabic", "Segoe UI", sans-serif; color: var(--ink); background: #fff; line-height: 1.6; }
a { color: var(--accent); }
a:focus-visible, pre:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
.skip { position: absolute; inset-inline-start: -999px; }
.skip:focus { inset-inline-start: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 1; }
header { border-bottom: 1px solid var(--line); padding: 1rem 1.5rem; display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
header h1 { margin: 0; font-size: 1.4rem; }
.layout { display: grid; grid-template-columns: 16rem minmax(0, 1fr); }
nav { border-inline-end: 1px solid var(--line); padding: 1rem; position: sticky; top: 0; align-self: start; max-height: 100vh; overflow: auto; font-size: .9rem; }
nav ul { list-style: none; padding: 0; margin: 0 0 1rem; }
nav li { margin: .15rem 0; }
main { padding: 1rem 2rem 4rem; max-width: 64rem; }
section.operation { border-top: 1px solid var(--line); padding-top: 1rem; margin-top: 2rem; }
.verb { display: inline-block; min-width: 4.5rem; font-weight: 700; font-family: ui-monospace, monospace; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85rem; }
pre { background: var(--code); border: 1px solid var(--line); padding: .75rem; overflow: auto; max-height: 28rem; direction: ltr; text-align: left; }
.examples { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: start; vertical-align: top; }
th { background: #f9fafb; }
.muted { color: var(--muted); }
@media (max-width: 50rem) { .layout { grid-template-columns: 1fr; } nav { position: static; max-height: none; border-inline-end: 0; } }
`;
