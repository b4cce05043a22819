import { createHash } from 'node:crypto';
import type { Db } from '../types.js';
import { assertFileKey, type FileStorage } from './storage.js';

/**
 * Files in the database itself (the `files` table: key → bytes), the default in PostgreSQL mode:
 * every process of a scaled-out installation reads what any other wrote, with nothing beside the
 * database to run, back up or secure. A put is one upsert (a single statement: atomic, readers see
 * the old bytes or the new ones). PostgreSQL keeps large values out of line (TOAST), so the table's
 * pages stay small; for many gigabytes of PDFs an S3 bucket is the better home (README, Scaling out).
 */
export class DatabaseStorage implements FileStorage {
  readonly description = 'database (files table)';

  constructor(
    private readonly db: Db,
    private readonly nowSeconds: () => number,
  ) {}

  async put(key: string, bytes: Uint8Array): Promise<void> {
    assertFileKey(key);
    const row = {
      key,
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.byteLength,
      updated_at: this.nowSeconds(),
    };
    await this.db
      .insertInto('files')
      .values(row)
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({ bytes: row.bytes, sha256: row.sha256, size: row.size, updated_at: row.updated_at }),
      )
      .execute();
  }

  async get(key: string): Promise<Buffer | null> {
    assertFileKey(key);
    const row = await this.db.selectFrom('files').select('bytes').where('key', '=', key).executeTakeFirst();
    return row ? Buffer.from(row.bytes) : null;
  }

  async delete(key: string): Promise<void> {
    assertFileKey(key);
    await this.db.deleteFrom('files').where('key', '=', key).execute();
  }

  /** The table exists once the store is migrated; a query proves the database answers. */
  async check(): Promise<void> {
    await this.db.selectFrom('files').select('key').limit(1).execute();
  }

  /** The store owns the connections. */
  async close(): Promise<void> {}
}
