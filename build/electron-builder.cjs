/**
 * electron-builder configuration for the Tawqi Agent installers:
 *   Windows  NSIS (per-user, x64)
 *   macOS    dmg (x64 + arm64), hardened runtime, notarized by ./notarize.cjs when Apple credentials are set
 *   Linux    AppImage and deb (x64)
 * Used by ./package.mjs, which stages the built agent (agent/dist, agent/ui, @tawqi/shared) in
 * build/.stage and runs electron-builder on it. See build/README.md.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- electron-builder loads CommonJS configs and hooks
const path = require('node:path');

module.exports = {
  appId: 'com.tawqi.agent',
  productName: 'Tawqi Agent',
  copyright: 'Copyright © Tawqi',
  artifactName: 'tawqi-agent-${version}-${os}-${arch}.${ext}',
  directories: {
    output: path.join(__dirname, 'out'),
    buildResources: __dirname,
  },
  files: ['package.json', 'dist/**/*.js', 'ui/**', '!**/*.map', '!**/*.d.ts', '!**/*.tsbuildinfo'],
  asar: true,
  // pkcs11js is a native addon: rebuilt for Electron's ABI and kept outside the asar archive.
  npmRebuild: true,
  asarUnpack: ['**/*.node'],
  extraMetadata: { main: 'dist/electron/main.js' },

  win: {
    target: [{ target: 'nsis', arch: ['x64'] }],
    icon: 'icon.png',
  },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
    createDesktopShortcut: false,
    createStartMenuShortcut: true,
    runAfterFinish: true,
  },

  mac: {
    target: [{ target: 'dmg', arch: ['x64', 'arm64'] }],
    category: 'public.app-category.productivity',
    icon: 'icon.png',
    hardenedRuntime: true,
    gatekeeperAssess: false,
    // Vendor PKCS#11 modules are signed by their vendors, not by us: library validation must be off.
    entitlements: 'entitlements.mac.plist',
    entitlementsInherit: 'entitlements.mac.plist',
    // A menu-bar (tray) app: no Dock icon.
    extendInfo: { LSUIElement: true },
  },
  dmg: { sign: false },
  afterSign: path.join(__dirname, 'notarize.cjs'),

  linux: {
    target: [
      { target: 'AppImage', arch: ['x64'] },
      { target: 'deb', arch: ['x64'] },
    ],
    category: 'Office',
    icon: 'icon.png',
    maintainer: 'Tawqi <support@tawqi.invalid>',
    synopsis: 'Local signing agent for qualified signatures with a hardware token',
  },
  deb: {
    // PC/SC for USB tokens and card readers; OpenSC serves many of them.
    depends: ['libpcsclite1'],
    recommends: ['pcscd', 'opensc-pkcs11'],
  },
};
