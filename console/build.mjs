// Bundles the console: src/main.ts → dist/app-<hash>.js and src/styles.css (which imports the signing
// page's stylesheet) → dist/app-<hash>.css, and dist/manifest.json naming them, which the server's
// page host reads to write the shell. Content-hashed names let the server cache assets for a year.
// ESM, with the settings of every browser bundle of the project (signing-page/bundle-options.mjs).
// Usage: node build.mjs [--watch]
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserBundle } from '@tawqi/signing-page/bundle-options';

const root = fileURLToPath(new URL('.', import.meta.url));
const outdir = `${root}dist`;
const watch = process.argv.includes('--watch');

/** Writes dist/manifest.json ({ "app.js": "app-<hash>.js", "app.css": "app-<hash>.css" }) after each build. */
const manifest = {
  name: 'manifest',
  setup(build) {
    build.onEnd(async (result) => {
      if (!result.metafile) return;
      const names = {};
      for (const [file, out] of Object.entries(result.metafile.outputs)) {
        if (file.endsWith('.map')) continue;
        const base = path.basename(file);
        // The two entry points; chunks loaded on demand (import(): PDF.js for the template editor) are not named.
        if (out.entryPoint === 'src/main.ts') names['app.js'] = base;
        else if (out.entryPoint === 'src/styles.css' || (base.endsWith('.css') && base.startsWith('app-'))) names['app.css'] = base;
      }
      await writeFile(`${outdir}/manifest.json`, `${JSON.stringify(names, null, 2)}\n`);
    });
  },
};

/** @type {import('esbuild').BuildOptions} */
const options = {
  ...browserBundle,
  absWorkingDir: root,
  entryPoints: ['src/main.ts', 'src/styles.css'],
  outdir,
  entryNames: 'app-[hash]',
  format: 'esm',
  platform: 'browser',
  // The signing page's kit and stylesheet are TypeScript and CSS sources (its package exports them).
  conditions: ['tawqi-source'],
  metafile: true,
  // A screen's large library (PDF.js) is a chunk of its own, fetched when the screen needs it.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  plugins: [manifest],
};

/**
 * PDF.js's worker (the template editor's PDF preview, src/templates/pdfPage.ts), beside the bundle as
 * pdf.worker-<version>.js: served from 'self' under the console's CSP, the version in its name so a
 * year's caching is safe. Already minified by its package; copied as it is.
 */
async function copyPdfWorker() {
  const pdfjs = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.mjs'));
  const { version } = JSON.parse(await readFile(path.join(pdfjs, '..', 'package.json'), 'utf8'));
  await copyFile(path.join(pdfjs, 'pdf.worker.min.mjs'), `${outdir}/pdf.worker-${version}.js`);
}

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
await copyPdfWorker();

if (watch) await (await esbuild.context(options)).watch();
else await esbuild.build(options);
