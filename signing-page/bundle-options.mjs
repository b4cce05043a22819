// The esbuild settings every browser bundle of the project shares — the signing page (build.mjs) and
// the console (console/build.mjs, through this package's export `@tawqi/signing-page/bundle-options`):
// minified, with source maps, UTF-8 output, licences at the end of the file, and the browsers the
// pages support (evergreen desktop and mobile from 2022 on). No CDN and no request at run time.

/** @type {import('esbuild').BuildOptions} */
export const browserBundle = {
  bundle: true,
  minify: true,
  sourcemap: true,
  charset: 'utf8',
  legalComments: 'eof',
  target: ['chrome100', 'edge100', 'firefox100', 'safari15.4'],
  logLevel: 'info',
};
