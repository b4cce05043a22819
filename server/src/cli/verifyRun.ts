/**
 * What `tawqi verify` runs (verify.ts declares the command): the validator, the PKI and PDF code
 * load only when a file is verified, not with every `tawqi` command.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { masterKeyFor } from '../masterKey.js';
import { fromPem } from '../sealing/pki/index.js';
import { pemCertificates } from '../sealing/qes/certificates.js';
import { MAX_PDF_BYTES, ValidationInputError, reportText, validatePdf, type Indication } from '../sealing/validation/index.js';
import { keyMaterialFor } from '../services/keyMaterial.js';
import { trustAnchors } from '../services/pdfValidation.js';
import { openStore } from '../store/db.js';
import { clock } from './kit.js';

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

export interface VerifyOptions {
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

/** Print the report (or, for a usage or input error, the message on stderr) and give its outcome for the exit code. */
export async function verify(file: string, opts: VerifyOptions): Promise<Indication | 'usage'> {
  try {
    const now = validationTime(opts.at);
    const pdf = readPdf(file);
    const extra = (opts.trust ?? []).flatMap(pemFile);
    const config = loadConfig();
    const anchors = trustAnchors(config, await installationCa(config), extra);
    const report = await validatePdf(pdf, { trustAnchors: anchors, now, lang: opts.lang });
    process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : reportText(report).join('\n') + '\n');
    return report.indication;
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof ValidationInputError)) throw err;
    process.stderr.write(`tawqi: ${err.message}\n`);
    return 'usage';
  }
}
