/**
 * The browser bundles the e2e tests load must exist and be newer than their sources: CI builds them
 * first (npm run build); a local run rebuilds a stale one here with the package's own build.mjs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The newest modification time under a folder. */
function newest(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).mtimeMs,
    ),
  );
}

/**
 * Build the package at `relRoot` (from the repository root) unless every output in dist/ is newer than
 * its src/ and the sources it bundles from other packages (`alsoFrom`, e.g. 'signing-page/src').
 */
function ensureBundle(relRoot: string, outputs: readonly string[], alsoFrom: readonly string[] = []): void {
  const root = fileURLToPath(new URL(`../../${relRoot}/`, import.meta.url));
  const repo = fileURLToPath(new URL('../../', import.meta.url));
  const sources = Math.max(newest(path.join(root, 'src')), ...alsoFrom.map((dir) => newest(path.join(repo, dir))));
  const fresh = outputs.every((o) => {
    const file = path.join(root, 'dist', o);
    return existsSync(file) && statSync(file).mtimeMs >= sources;
  });
  if (!fresh) execFileSync(process.execPath, ['build.mjs'], { cwd: root, stdio: 'pipe', timeout: 15_000 });
}

/** The signing page and the verification page's script (signing-page/dist: app.js, app.css, verify.js). */
export const ensureSigningPage = (): void => ensureBundle('signing-page', ['app.js', 'app.css', 'verify.js', 'validate.js']);

/** @tawqi/embed (sdk/embed/dist: the ESM module and the single script the server serves at /embed/v1.js). */
export const ensureEmbedLibrary = (): void => ensureBundle('sdk/embed', ['tawqi-embed.mjs', 'tawqi-embed.js']);

/** The console (console/dist: hashed app-*.js and app-*.css named by manifest.json; it bundles the signing page's kit and styles). */
export const ensureConsole = (): void => ensureBundle('console', ['manifest.json'], ['signing-page/src']);
