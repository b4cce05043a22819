#!/usr/bin/env node
/**
 * Builds the Tawqi Agent installers on a machine that can download Electron:
 *
 *   npm run build                                   # compiles shared/ and agent/
 *   npm install --no-save electron electron-builder # see build/README.md for versions
 *   node build/package.mjs [--win] [--mac] [--linux] # default: the current OS
 *
 * The workspace hoists dependencies to the repository root, and @tawqi/shared is not on npm, so the
 * app is staged in build/.stage: agent/dist, agent/ui, a package.json with the agent's runtime
 * dependencies and @tawqi/shared vendored from shared/dist. electron-builder then installs the
 * production dependencies there, rebuilds pkcs11js for Electron, and packs (build/electron-builder.cjs).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const require = createRequire(import.meta.url);
const fail = (message) => {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
};

let builder;
let electronVersion;
try {
  builder = await import('electron-builder');
  electronVersion = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
} catch {
  fail('electron and electron-builder are not installed: npm install --no-save electron electron-builder (see build/README.md)');
}
for (const built of ['agent/dist/electron/main.js', 'agent/dist/cli/main.js', 'shared/dist/index.js']) {
  if (!existsSync(path.join(repo, built))) fail(`${built} is missing: run npm run build first`);
}

const agentPkg = JSON.parse(readFileSync(path.join(repo, 'agent/package.json'), 'utf8'));
const sharedPkg = JSON.parse(readFileSync(path.join(repo, 'shared/package.json'), 'utf8'));
const stage = path.join(here, '.stage');
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(path.join(repo, 'agent/dist'), path.join(stage, 'dist'), { recursive: true });
cpSync(path.join(repo, 'agent/ui'), path.join(stage, 'ui'), { recursive: true });
cpSync(path.join(repo, 'shared/dist'), path.join(stage, 'vendor/shared/dist'), { recursive: true });
writeFileSync(
  path.join(stage, 'vendor/shared/package.json'),
  JSON.stringify({ ...sharedPkg, exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } }, null, 2),
);
writeFileSync(
  path.join(stage, 'package.json'),
  JSON.stringify(
    {
      name: 'tawqi-agent',
      productName: 'Tawqi Agent',
      version: agentPkg.version,
      description: agentPkg.description,
      author: 'Tawqi',
      type: 'module',
      main: 'dist/electron/main.js',
      dependencies: { ...agentPkg.dependencies, '@tawqi/shared': 'file:vendor/shared' },
      devDependencies: { electron: electronVersion },
    },
    null,
    2,
  ),
);
execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--install-links'], { cwd: stage, stdio: 'inherit' });

const wanted = process.argv.slice(2);
const targets = [];
if (wanted.includes('--win')) targets.push(builder.Platform.WINDOWS);
if (wanted.includes('--mac')) targets.push(builder.Platform.MAC);
if (wanted.includes('--linux')) targets.push(builder.Platform.LINUX);
const config = require('./electron-builder.cjs');
await builder.build({
  projectDir: stage,
  config: { ...config, electronVersion },
  ...(targets.length > 0 ? { targets: builder.createTargets(targets) } : {}),
});
process.stdout.write(`installers in ${config.directories.output}\n`);
