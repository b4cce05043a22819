/**
 * The `tawqi` program: commander with every command group, in the order --help lists them.
 * Command files import at the top only what declaring their commands and the store commands need; a
 * command that needs the PDF, PKI or S3 code (verify, db copy|backup, the link key of mail show)
 * imports it when it runs, so `--help` and the store commands start in about half the CPU.
 */
import { Command } from 'commander';
import { accountCommands } from './accounts.js';
import { dbCommands } from './db.js';
import { eventCommands } from './events.js';
import { keyCommands } from './keys.js';
import { mailCommands } from './mail.js';
import { secretsCommands } from './secrets.js';
import { userCommands } from './users.js';
import { webhookCommands } from './webhooks.js';
import { workflowCommands } from './workflows.js';
import { listenCommand } from './remote/listen.js';
import { triggerCommand } from './remote/trigger.js';
import { verifyCommand } from './verify.js';

export function buildProgram(): Command {
  const program = new Command('tawqi')
    .description(
      'Tawqi operator commands. Uses the store in DATA_DIR (default ./data); safe while the server runs. listen and trigger talk to a server over HTTP with a secret key instead.',
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  accountCommands(program);
  keyCommands(program);
  userCommands(program);
  mailCommands(program);
  workflowCommands(program);
  webhookCommands(program);
  eventCommands(program);
  secretsCommands(program);
  dbCommands(program);
  listenCommand(program);
  triggerCommand(program);
  verifyCommand(program);
  return program;
}
