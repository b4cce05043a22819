// Bundles @tawqi/embed with esbuild: src/index.ts → dist/tawqi-embed.mjs (ESM, for bundlers and
// <script type="module">) and dist/tawqi-embed.js (one classic script defining the global
// TawqiEmbed; the server serves it at /embed/v1.js). No dependencies, nothing fetched at run time.
// Usage: node build.mjs
import * as esbuild from 'esbuild';
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const outdir = `${root}dist`;

/** The browsers the signing page supports (signing-page/build.mjs): evergreen from 2022 on. */
const target = ['chrome100', 'edge100', 'firefox100', 'safari15.4'];

const common = {
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  bundle: true,
  platform: 'browser',
  charset: 'utf8',
  legalComments: 'none',
  target,
  logLevel: 'info',
};

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
await Promise.all([
  // Readable ESM: an integrator's bundler minifies it with the rest of their code.
  esbuild.build({ ...common, format: 'esm', outfile: `${outdir}/tawqi-embed.mjs` }),
  esbuild.build({ ...common, format: 'iife', globalName: 'TawqiEmbed', minify: true, outfile: `${outdir}/tawqi-embed.js` }),
]);
