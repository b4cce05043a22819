/**
 * `tawqi verify` as a real process (test/support/cli.ts) on the final PDFs of every format made by
 * the real built-in PKI (sealedFinalPdf with a PKI under DATA_DIR/pki, which the CLI trusts from
 * there), on a PDF from an openssl PKI it does not know (indeterminate, then trusted with --trust),
 * on a tampered PDF, and on usage errors: exit codes 0/1/2/64, the JSON shape and the text output.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../server/src/clock.js';
import { signPades } from '../../server/src/sealing/pades/index.js';
import { filePkiStorage, loadOrCreatePki } from '../../server/src/sealing/pki/index.js';
import { sealedFinalPdf } from '../../server/src/sealing/seal.js';
import type { ValidationReport } from '../../server/src/sealing/validation/index.js';
import { runCli } from '../support/cli.js';
import { createPkiFixture, makeTestPdf, type PkiFixture } from '../support/pkiFixture.js';
import { minimalFinalInput } from '../support/finalInput.js';

describe('tawqi verify', () => {
  let dir: string;
  let fixture: PkiFixture;
  const files: Record<string, string> = {};
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(dir, 'data') });
  const json = (stdout: string) => JSON.parse(stdout) as ValidationReport;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-verify-cli-'));
    fixture = createPkiFixture('ec');
    const pki = await loadOrCreatePki(filePkiStorage(path.join(dir, 'data')), systemClock, 'http://127.0.0.1:9');
    for (const format of ['platform-evidence', 'pades-t', 'pades-lt']) {
      files[format] = path.join(dir, `${format}.pdf`);
      writeFileSync(files[format], await sealedFinalPdf(pki, minimalFinalInput(format, Math.floor(Date.now() / 1000) - 60), 'Riyadh'));
    }
    const foreign = await signPades(await makeTestPdf(1), {
      signer: fixture.signer,
      timestamp: fixture.timestamp,
      level: 'B-T',
      signingTime: new Date(),
    });
    files.foreign = path.join(dir, 'foreign.pdf');
    writeFileSync(files.foreign, foreign);
    const tampered = Buffer.from(foreign);
    tampered[10] = tampered[10]! ^ 0x01;
    files.tampered = path.join(dir, 'tampered.pdf');
    writeFileSync(files.tampered, tampered);
  });
  after(() => {
    fixture.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('our own PDFs: platform-evidence has no signature (2), pades-t is B-T and pades-lt B-LTA, both TOTAL-PASSED (0)', async () => {
    const evidence = await runCli(env(), 'verify', files['platform-evidence']!, '--json');
    assert.equal(evidence.code, 2, evidence.stderr);
    assert.equal(json(evidence.stdout).subIndication, 'NO_SIGNATURE_FOUND');
    for (const [format, level] of [
      ['pades-t', 'B-T'],
      ['pades-lt', 'B-LTA'],
    ] as const) {
      const run = await runCli(env(), 'verify', files[format]!, '--json');
      assert.equal(run.code, 0, `${format}: ${run.stdout}${run.stderr}`);
      const report = json(run.stdout);
      assert.equal(report.version, 1);
      assert.equal(report.indication, 'TOTAL-PASSED');
      assert.equal(report.signatures[0]?.level, level);
      assert.match(report.signatures[0]?.chain?.trustAnchor ?? '', /Tawqi/);
      // The built-in CA's CRL and its delegated OCSP responder's response authenticate: none ignored.
      const { ignoredCrls, ignoredOcsps } = report.signatures[0]!.revocation;
      assert.deepEqual([ignoredCrls, ignoredOcsps], [0, 0]);
    }
  });

  test('a foreign PKI: INDETERMINATE (2) until --trust names its root (0)', async () => {
    const untrusted = await runCli(env(), 'verify', files.foreign!, '--json');
    assert.equal(untrusted.code, 2, untrusted.stderr);
    assert.equal(json(untrusted.stdout).subIndication, 'NO_CERTIFICATE_CHAIN_FOUND');
    const trusted = await runCli(env(), 'verify', files.foreign!, '--trust', fixture.caFile);
    assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
    assert.match(trusted.stdout, /^Overall: TOTAL-PASSED/);
    // Names as people read them in the text (values, CN first); the JSON keeps the raw DN.
    assert.match(trusted.stdout, /Certificate chain: Tawqi Test Seal \(EC\), Tawqi Tests → Tawqi Test Issuing CA, Tawqi Tests → /);
    assert.match(trusted.stdout, /Trust anchor: Tawqi Test Root CA, Tawqi Tests$/m);
    assert.equal(json(untrusted.stdout).signatures[0]?.chain?.certificates[0]?.subject, 'O=Tawqi Tests, CN=Tawqi Test Seal (EC)');
  });

  test('a tampered PDF: TOTAL-FAILED (1) with HASH_FAILURE, in Arabic with --lang ar', async () => {
    const run = await runCli(env(), 'verify', files.tampered!, '--trust', fixture.caFile, '--lang', 'ar');
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /النتيجة الإجمالية: TOTAL-FAILED \/ HASH_FAILURE/);
    assert.match(run.stdout, /تغيّرت البايتات الموقعة/);
  });

  test('--at moves the validation time: pades-lt in 2100, when every certificate has expired, is INDETERMINATE (2)', async () => {
    const run = await runCli(env(), 'verify', files['pades-lt']!, '--json', '--at', '2100-01-01T00:00:00Z');
    assert.equal(run.code, 2, run.stdout + run.stderr);
    const report = json(run.stdout);
    assert.equal(report.validatedAt, '2100-01-01T00:00:00.000Z');
    assert.deepEqual([report.indication, report.subIndication], ['INDETERMINATE', 'OUT_OF_BOUNDS_NO_POE']);
    // The last document timestamp's TSA chain is checked at the validation time: nothing later proves it.
    assert.equal(report.signatures.at(-1)?.chain?.checkedAt, '2100-01-01T00:00:00.000Z');
  });

  test('usage and input errors exit 64: missing file, not a PDF, unknown option, bad --trust, bad --at', async () => {
    const notPdf = path.join(dir, 'note.txt');
    writeFileSync(notPdf, 'hello');
    for (const args of [
      ['verify', path.join(dir, 'missing.pdf')],
      ['verify', notPdf],
      ['verify', files['pades-t']!, '--frobnicate'],
      ['verify', files['pades-t']!, '--trust', notPdf],
      ['verify', files['pades-t']!, '--at', 'next tuesday'],
    ]) {
      const run = await runCli(env(), ...args);
      assert.equal(run.code, 64, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.notEqual(run.stderr, '');
    }
  });
});
