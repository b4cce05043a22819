/**
 * `tawqi verify FILE.pdf [--json] [--trust root.pem …] [--lang ar|en] [--at ISO-TIME]`: validates every signature
 * and document timestamp of a PDF without a running server. Trusted: this installation's CA (from
 * DATA_DIR/pki, or the database with DATABASE_URL), TAWQI_QES_TRUSTED_ROOTS and each --trust file.
 *
 * Exit code: 0 TOTAL-PASSED, 1 TOTAL-FAILED, 2 INDETERMINATE (no signature included),
 * 64 usage or input error (bad option, unreadable file, not a PDF, over 25 MB).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Command, CommanderError, Option } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { masterKeyFor } from '../masterKey.js';
import { fromPem } from '../sealing/pki/index.js';
import { pemCertificates } from '../sealing/qes/certificates.js';
import { MAX_PDF_BYTES, ValidationInputError, reportText, validatePdf, type Indication } from '../sealing/validation/index.js';
import { keyMaterialFor } from '../services/keyMaterial.js';
import { trustAnchors } from '../services/pdfValidation.js';
import { openStore } from '../store/db.js';
import { clock, collect } from './kit.js';

const USAGE_EXIT = 64;
const EXIT: Record<Indication, number> = { 'TOTAL-PASSED': 0, 'TOTAL-FAILED': 1, INDETERMINATE: 2 };

class UsageError extends Error {}

function pemFile(file: string): Uint8Array[] {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch (err) {
    throw new UsageError(`--trust ${file}: ${(err as Error).message}`);
  }
  const certificates = pemCertificates(text);
  if (certificates.length === 0) throw new UsageError(`--trust ${file}: no PEM certificate in it`);
  return certificates;
}

/** This installation's CA certificate: DATA_DIR/pki/ca.pem on SQLite, the database with DATABASE_URL; none when there is no PKI yet. */
async function installationCa(config: Config): Promise<Uint8Array[]> {
  if (!config.DATABASE_URL) {
    const file = path.join(config.DATA_DIR, 'pki', 'ca.pem');
    return existsSync(file) ? [fromPem(readFileSync(file, 'latin1'), 'CERTIFICATE')] : [];
  }
  const store = await openStore(config.DATA_DIR, {
    databaseUrl: config.DATABASE_URL,
    poolSize: 1,
    synchronous: config.TAWQI_SQLITE_SYNCHRONOUS,
  });
  try {
    const storage = keyMaterialFor(config, masterKeyFor(config), store, clock).pki;
    const material = await storage.loadOrCreate(() => Promise.reject(new Error('no PKI in the database yet')));
    return [material.ca.certificate];
  } catch (err) {
    process.stderr.write(`tawqi: the installation CA is not trusted: ${(err as Error).message}\n`);
    return [];
  } finally {
    await store.close();
  }
}

function readPdf(file: string): Uint8Array {
  try {
    if (statSync(file).size > MAX_PDF_BYTES) throw new UsageError(`${file}: larger than ${MAX_PDF_BYTES} bytes`);
    return new Uint8Array(readFileSync(file));
  } catch (err) {
    throw err instanceof UsageError ? err : new UsageError(`${file}: ${(err as Error).message}`);
  }
}

interface VerifyOptions {
  json?: boolean;
  trust?: string[];
  lang: 'ar' | 'en';
  at?: string;
}

/** The validation time: --at (an operator asking "was it valid then / will it still be"), else the clock. */
function validationTime(at: string | undefined): Date {
  if (at === undefined) return new Date(clock.nowMs());
  const time = new Date(at);
  if (!/^\d{4}-\d{2}-\d{2}(T|$)/.test(at) || Number.isNaN(time.getTime())) throw new UsageError(`--at ${at}: not an ISO 8601 time`);
  return time;
}

async function verify(file: string, opts: VerifyOptions): Promise<void> {
  try {
    const now = validationTime(opts.at);
    const pdf = readPdf(file);
    const extra = (opts.trust ?? []).flatMap(pemFile);
    const config = loadConfig();
    const anchors = trustAnchors(config, await installationCa(config), extra);
    const report = await validatePdf(pdf, { trustAnchors: anchors, now, lang: opts.lang });
    process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : reportText(report).join('\n') + '\n');
    process.exitCode = EXIT[report.indication];
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof ValidationInputError)) throw err;
    process.stderr.write(`tawqi: ${err.message}\n`);
    process.exitCode = USAGE_EXIT;
  }
}

export function verifyCommand(program: Command): void {
  program
    .command('verify <file>')
    .description(
      'Validate every signature and document timestamp of a PDF (exit 0 TOTAL-PASSED, 1 TOTAL-FAILED, 2 INDETERMINATE, 64 usage error)',
    )
    .option('--json', 'print the report as one JSON object')
    .option('--trust <pem>', 'also trust the certificates in this PEM file (repeatable)', collect(String))
    .option('--at <time>', 'validate at this ISO 8601 time instead of now (e.g. 2030-01-01T00:00:00Z)')
    .addOption(new Option('--lang <lang>', 'language of the messages').choices(['ar', 'en']).default('en'))
    .exitOverride((err) => {
      throw err.exitCode === 0 ? err : new CommanderError(USAGE_EXIT, err.code, err.message);
    })
    .action(verify);
}
