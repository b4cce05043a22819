// Bundles the console: src/main.ts → dist/app-<hash>.js and src/styles.css (which imports the signing
// page's stylesheet) → dist/app-<hash>.css, and dist/manifest.json naming them, which the server's
// page host reads to write the shell. Content-hashed names let the server cache assets for a year.
// ESM, with the settings of every browser bundle of the project (signing-page/bundle-options.mjs).
// Usage: node build.mjs [--watch]
import * as esbuild from 'esbuild';
import { mkdir, rm, writeFile } from 'node:fs/promises';
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
        names[out.entryPoint?.endsWith('.css') || base.endsWith('.css') ? 'app.css' : 'app.js'] = base;
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
  plugins: [manifest],
};

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });

if (watch) await (await esbuild.context(options)).watch();
else await esbuild.build(options);
