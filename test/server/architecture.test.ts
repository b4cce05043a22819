import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The import rules of .dependency-cruiser.cjs (run by `npm run lint`): the real tree passes, an upward import fails. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = path.join(root, '.dependency-cruiser.cjs');
const bin = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function depcruise(cwd: string, dirs: string[]) {
  const r = spawnSync(process.execPath, [bin, '--config', config, '--output-type', 'err', ...dirs], { cwd, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('architecture', () => {
  it('the repository has no forbidden import and no cycle', () => {
    const r = depcruise(root, ['server/src', 'shared/src', 'agent/src', 'signing-page/src', 'console/src']);
    assert.equal(r.status, 0, r.output);
  });

  it('an upward import and a type-only cycle fail the check, naming the rule', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-arch-'));
    try {
      for (const f of ['tsconfig.json', 'tsconfig.base.json']) cpSync(path.join(root, f), path.join(dir, f));
      cpSync(path.join(root, 'server/src'), path.join(dir, 'server/src'), { recursive: true });
      writeFileSync(
        path.join(dir, 'server/src/store/upward.ts'),
        "import { runSeal } from '../services/sealing.js';\nexport const seal = runSeal;\n",
      );
      writeFileSync(path.join(dir, 'server/src/store/loopA.ts'), "import type { B } from './loopB.js';\nexport interface A { b?: B }\n");
      writeFileSync(path.join(dir, 'server/src/store/loopB.ts'), "import type { A } from './loopA.js';\nexport interface B { a?: A }\n");
      const r = depcruise(dir, ['server/src']);
      assert.notEqual(r.status, 0, r.output);
      assert.match(r.output, /store-imports-only-core: server\/src\/store\/upward\.ts → server\/src\/services\/sealing\.ts/);
      assert.match(r.output, /no-circular: server\/src\/store\/loop[AB]\.ts → /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
