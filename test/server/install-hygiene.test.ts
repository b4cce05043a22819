/**
 * Install hygiene: `npm install` on a fresh clone leaves `git status` clean, and the install scripts
 * the project needs are allowed explicitly (package.json "allowScripts", with .npmrc
 * strict-allow-scripts), so an npm that blocks unlisted scripts still installs it.
 * Without a network-heavy reinstall: the lockfile check runs npm offline on the manifests alone
 * (--package-lock-only needs no package contents); test/ci.sh checks `git status --porcelain` after
 * its full install and build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8'));
/** The workspaces as the root package.json lists them (shared, server, signing-page, agent, sdk/node, sdk/embed). */
const WORKSPACES: string[] = readJson(path.join(root, 'package.json')).workspaces;

/** npm in `dir`, offline, with no user or global configuration: only the project's .npmrc counts. */
function npm(dir: string, args: string[]) {
  const user = path.join(dir, '.user-npmrc');
  const global = path.join(dir, '.global-npmrc');
  for (const f of [user, global]) writeFileSync(f, '');
  const r = spawnSync('npm', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_userconfig: user,
      npm_config_globalconfig: global,
      npm_config_cache: path.join(dir, '.npm-cache'),
      npm_config_update_notifier: 'false',
    },
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A copy of the project's manifests, lockfile and npm configuration (no sources, no node_modules). */
function manifestsCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-install-'));
  for (const f of ['package.json', 'package-lock.json', '.npmrc', ...WORKSPACES.map((w) => `${w}/package.json`)]) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    cpSync(path.join(root, f), path.join(dir, f));
  }
  return dir;
}

describe('install hygiene', () => {
  test('npm install does not rewrite the committed lockfile (and the check sees a drift)', () => {
    const dir = manifestsCopy();
    try {
      const lock = readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
      const r = npm(dir, ['install', '--package-lock-only', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
      assert.equal(r.status, 0, r.output);
      assert.equal(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'), lock, 'npm install rewrote package-lock.json');

      // Not vacuous: a manifest the lockfile does not match is rewritten.
      const pkg = readJson(path.join(dir, 'package.json'));
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, version: '9.9.9' }, null, 2) + '\n');
      const drift = npm(dir, ['install', '--package-lock-only', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
      assert.equal(drift.status, 0, drift.output);
      assert.notEqual(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'), lock);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('everything install and build write is git-ignored', () => {
    const written = [
      'node_modules/.package-lock.json',
      ...WORKSPACES.map((w) => `${w}/dist/index.js`),
      ...WORKSPACES.map((w) => `${w}/tsconfig.tsbuildinfo`),
      'signing-page/dist/app.js',
      'sdk/embed/dist/tawqi-embed.js',
      'sdk/embed/dist-types/index.d.ts',
      'test-artifacts/e2e/x.png',
    ];
    const r = spawnSync('git', ['check-ignore', '--no-index', '--verbose', '--non-matching', ...written], { cwd: root, encoding: 'utf8' });
    const notIgnored = r.stdout
      .split('\n')
      .filter((line) => line.startsWith('::'))
      .map((line) => line.slice(2).trim());
    assert.deepEqual(notIgnored, [], `not ignored:\n${r.stdout}${r.stderr}`);
  });

  test('every dependency with an install script is listed in allowScripts, and .npmrc makes an unlisted one fail the install', () => {
    const pkg = readJson(path.join(root, 'package.json'));
    const lock = readJson(path.join(root, 'package-lock.json'));
    const allowed = pkg.allowScripts as Record<string, boolean>;
    assert.equal(typeof allowed, 'object', 'package.json has allowScripts');
    const withScripts = Object.entries(lock.packages as Record<string, Json>)
      .filter(([key, entry]) => key.includes('node_modules/') && entry.hasInstallScript)
      .map(([key, entry]) => ({
        name: key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length),
        version: entry.version as string,
      }));
    assert.ok(withScripts.length >= 3, 'better-sqlite3, esbuild and pkcs11js build or fetch native code');
    for (const { name, version } of withScripts)
      assert.ok(
        allowed[name] === true || allowed[`${name}@${version}`] === true,
        `${name}@${version} has install scripts not in allowScripts`,
      );
    for (const [entry, allow] of Object.entries(allowed)) {
      const name = entry.replace(/(?<=.)@.*$/, '');
      assert.equal(allow, true, entry);
      assert.ok(
        withScripts.some((p) => p.name === name),
        `${entry} is allowed but has no install script in the lockfile (npm install-scripts prune)`,
      );
    }
    const npmrc = readFileSync(path.join(root, '.npmrc'), 'utf8');
    assert.match(npmrc, /^strict-allow-scripts=true$/m, 'an install script not listed fails the install (npm ≥ 11.16)');
  });
});
