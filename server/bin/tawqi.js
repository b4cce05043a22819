#!/usr/bin/env node
// The `tawqi` operator command: runs the compiled CLI (server/dist/cli/main.js).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/main.js', import.meta.url);

if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write('tawqi: the CLI is not built yet; run `npm run build` in the repository root first.\n');
  process.exitCode = 1;
}
