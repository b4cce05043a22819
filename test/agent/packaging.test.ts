/**
 * The desktop packaging and the shell boundaries: electron-builder targets for the three OSes,
 * the macOS hardened runtime and notarization hook, Electron kept optional and out of the core,
 * and the test-only PIN source confined to the CLI.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

interface BuilderConfig {
  win: { target: { target: string }[] };
  mac: { target: { target: string }[]; hardenedRuntime: boolean; entitlements: string };
  linux: { target: { target: string }[] };
  afterSign: string;
  directories: { buildResources: string };
  asarUnpack: string[];
}

describe('packaging and shell boundaries', () => {
  const config = require(path.join(ROOT, 'build/electron-builder.cjs')) as BuilderConfig;

  test('installers: NSIS, dmg with hardened runtime and a notarization hook, AppImage and deb', () => {
    assert.deepEqual(
      config.win.target.map((t) => t.target),
      ['nsis'],
    );
    assert.deepEqual(
      config.mac.target.map((t) => t.target),
      ['dmg'],
    );
    assert.equal(config.mac.hardenedRuntime, true);
    assert.deepEqual(
      config.linux.target.map((t) => t.target),
      ['AppImage', 'deb'],
    );
    assert.ok(existsSync(config.afterSign));
    assert.ok(config.asarUnpack.includes('**/*.node'), 'the pkcs11js addon stays loadable');
    const entitlements = readFileSync(path.join(config.directories.buildResources, config.mac.entitlements), 'utf8');
    assert.match(entitlements, /com\.apple\.security\.cs\.disable-library-validation<\/key>\s*<true\/>/, 'vendor PKCS#11 modules can load');
    assert.ok(existsSync(path.join(ROOT, 'build/icon.png')));
  });

  test('the notarization hook skips without Apple credentials and on other platforms', async () => {
    const hook = require(config.afterSign) as (context: unknown) => Promise<void>;
    await hook({ electronPlatformName: 'linux' });
    const saved = { ...process.env };
    for (const k of ['APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID', 'APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'])
      delete process.env[k];
    try {
      await hook({ electronPlatformName: 'darwin', appOutDir: '/nonexistent', packager: { appInfo: { productFilename: 'Tawqi Agent' } } });
    } finally {
      Object.assign(process.env, saved);
    }
  });

  test('Electron is never a hard dependency, and the core never imports it', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'agent/package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    assert.equal(pkg.dependencies?.electron, undefined);
    assert.equal(pkg.devDependencies?.electron, undefined);
    for (const file of filesUnder(path.join(ROOT, 'agent/src/core'))) {
      assert.doesNotMatch(readFileSync(file, 'utf8'), /from ['"]electron['"]|require\(['"]electron['"]\)|electron\//, file);
    }
    const main = readFileSync(path.join(ROOT, 'agent/src/electron/main.ts'), 'utf8');
    assert.doesNotMatch(main, /^import .* from ['"]electron['"]/m, 'loaded at run time, so the agent builds without Electron');
    for (const page of ['consent.html', 'pin.html', 'trust.html', 'preload.cjs', 'tray.png'])
      assert.ok(existsSync(path.join(ROOT, 'agent/ui', page)), page);
  });

  test('the test-only PIN and consent variables are read by the CLI shell only', () => {
    const reads = /\.TAWQI_AGENT_TEST_|\[['"]TAWQI_AGENT_TEST_/;
    const readers = filesUnder(path.join(ROOT, 'agent/src')).filter((f) => reads.test(readFileSync(f, 'utf8')));
    assert.deepEqual(
      readers.map((f) => path.relative(ROOT, f)),
      ['agent/src/cli/terminal.ts'],
    );
    for (const file of filesUnder(path.join(ROOT, 'agent/src/electron')))
      assert.doesNotMatch(readFileSync(file, 'utf8'), /from ['"]\.\.\/cli\//, file);
    for (const file of filesUnder(path.join(ROOT, 'agent/ui')))
      assert.doesNotMatch(readFileSync(file, 'latin1'), /TAWQI_AGENT_TEST_/, file);
  });
});
