/**
 * `tawqi verify FILE.pdf [--json] [--trust root.pem …] [--lang ar|en] [--at ISO-TIME]`: validates every signature
 * and document timestamp of a PDF without a running server. Trusted: this installation's CA (from
 * DATA_DIR/pki, or the database with DATABASE_URL), TAWQI_QES_TRUSTED_ROOTS and each --trust file.
 *
 * Exit code: 0 TOTAL-PASSED, 1 TOTAL-FAILED, 2 INDETERMINATE (no signature included),
 * 64 usage or input error (bad option, unreadable file, not a PDF, over 25 MB).
 *
 * The command is declared here; its work is in verifyRun.ts, imported when it runs.
 */
import { type Command, CommanderError, Option } from 'commander';
import { collect } from './kit.js';
import type { Indication } from '../sealing/validation/index.js';
import type { VerifyOptions } from './verifyRun.js';

const USAGE_EXIT = 64;
const EXIT: Record<Indication | 'usage', number> = { 'TOTAL-PASSED': 0, 'TOTAL-FAILED': 1, INDETERMINATE: 2, usage: USAGE_EXIT };

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
    .action(async (file: string, opts: VerifyOptions) => {
      const { verify } = await import('./verifyRun.js');
      process.exitCode = EXIT[await verify(file, opts)];
    });
}
