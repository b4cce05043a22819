/**
 * `tawqi`: the operator command line. It opens the same SQLite store as the server (WAL, one write
 * transaction at a time), so it is safe to run while the server runs.
 *
 *   tawqi account create|show|list|set|notices|log …                   accounts.ts
 *   tawqi account branding …                                           branding.ts
 *   tawqi key create|list|rotate|revoke|set …                          keys.ts
 *   tawqi mail list|show …                                             mail.ts
 *   tawqi webhook add|list|show|rotate-secret|disable|enable|delete …  webhooks.ts
 *   tawqi events show …                                                events.ts
 *   tawqi workflow create|update|publish|archive|list|show …           workflows.ts
 *   tawqi secrets new-master-key                                       secrets.ts
 *   tawqi db copy|backup …                                             db.ts
 *   tawqi listen --forward-to <url> [--events …]                       remote/listen.ts
 *   tawqi trigger <event type> | --list                                remote/trigger.ts
 *   tawqi verify FILE.pdf [--json] [--trust root.pem] [--lang ar|en]   verify.ts (exit 0/1/2 by indication)
 *
 * listen and trigger are the exception: they do not open the store but talk to a server over HTTP
 * with a secret key (--api-key or TAWQI_SECRET_KEY, --api-base), as an integrator's code would.
 * Every command takes --json (exactly one JSON object on stdout; listen: one per line) and --help. Errors go to stderr with
 * exit code 1. Key secrets are printed only by `account create`, `key create` and `key rotate`.
 * This module is the entry (server/bin/tawqi.js runs its build, dist/cli/main.js); program.ts
 * assembles the commands, kit.ts holds what the command files share.
 */
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    // Commander has already printed its message (or the help); keep its exit code.
    if (err instanceof CommanderError) process.exitCode = err.exitCode;
    else throw err;
  }
}

await main(process.argv);
