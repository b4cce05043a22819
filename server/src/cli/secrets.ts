/** `tawqi secrets …`: key material the operator keeps outside the database. */
import type { Command } from 'commander';
import { newMasterKeyHex } from '../masterKey.js';
import { command, emit, run, type JsonFlag } from './kit.js';

/** Prints a fresh TAWQI_MASTER_KEY and nothing else (no store, no settings read). */
async function newMasterKey(o: JsonFlag): Promise<void> {
  const key = newMasterKeyHex();
  emit(o, { master_key: key }, () => [key]);
}

export function secretsCommands(program: Command): void {
  const secrets = program.command('secrets').description('key material kept outside the database');
  command(
    secrets,
    'new-master-key',
    'print a new TAWQI_MASTER_KEY (32 random bytes, hex); set it before the first start on PostgreSQL and back it up apart from the database',
  ).action(run(newMasterKey));
}
