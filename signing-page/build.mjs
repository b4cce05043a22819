// Bundles the signing page: src/main.ts → dist/app.js and src/styles.css → dist/app.css; and the
// verification page's script: src/verify.ts → dist/verify.js (it shares app.css).
// ESM, minified, with source maps; no CDN and no external requests at run time.
// Usage: node build.mjs [--watch]
import * as esbuild from 'esbuild';
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { browserBundle } from './bundle-options.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));
const outdir = `${root}dist`;
const watch = process.argv.includes('--watch');

const common = {
  ...browserBundle,
  absWorkingDir: root,
  outdir,
  entryNames: 'app',
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  { ...common, entryPoints: ['src/main.ts'], format: 'esm', platform: 'browser' },
  { ...common, entryPoints: ['src/styles.css'] },
  // The public verification page's file check (server/src/http/verify/): dist/verify.js.
  { ...common, entryPoints: ['src/verify.ts'], entryNames: 'verify', format: 'esm', platform: 'browser' },
  // The signature validator page (/verify, server/src/http/verify/validatePage.ts): dist/validate.js.
  { ...common, entryPoints: ['src/validate.ts'], entryNames: 'validate', format: 'esm', platform: 'browser' },
];

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
