/**
 * File storage (DESIGN §1: store/ holds file storage too): the port, its backends, and the one
 * built from the settings. Keys: domain/fileKeys.ts.
 */
import type { Config } from '../../config.js';
import type { Db } from '../types.js';
import { DatabaseStorage } from './database.js';
import { FolderStorage } from './folder.js';
import { S3Storage } from './s3.js';
import type { FileStorage } from './storage.js';

export { DatabaseStorage } from './database.js';
export { FolderStorage } from './folder.js';
export { S3Storage, type S3StorageOptions } from './s3.js';
export { assertFileKey, FileKeyError, type FileStorage } from './storage.js';

export type StorageKind = NonNullable<Config['TAWQI_STORAGE']>;

/** The backend in use: TAWQI_STORAGE, else the database on PostgreSQL and the DATA_DIR folder on SQLite. */
export function storageKind(config: Config): StorageKind {
  return config.TAWQI_STORAGE ?? (config.DATABASE_URL ? 'postgres' : 'folder');
}

/**
 * The backend storageKind names (settings already checked by loadConfig). The database backend
 * needs the open store's `db` (and a clock for its timestamps); the others need nothing of it.
 */
export function fileStorageFromConfig(config: Config, database?: { db: Db; nowSeconds: () => number }): FileStorage {
  switch (storageKind(config)) {
    case 'postgres':
      if (!database) throw new Error('database file storage needs the open store');
      return new DatabaseStorage(database.db, database.nowSeconds);
    case 'folder':
      return new FolderStorage(config.DATA_DIR);
    case 's3': {
      const { TAWQI_S3_ACCESS_KEY_ID: accessKeyId, TAWQI_S3_SECRET_ACCESS_KEY: secretAccessKey } = config;
      return new S3Storage({
        bucket: config.TAWQI_S3_BUCKET!,
        region: config.TAWQI_S3_REGION,
        endpoint: config.TAWQI_S3_ENDPOINT,
        forcePathStyle: config.TAWQI_S3_FORCE_PATH_STYLE ?? config.TAWQI_S3_ENDPOINT !== undefined,
        prefix: config.TAWQI_S3_PREFIX ? `${config.TAWQI_S3_PREFIX}/` : '',
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      });
    }
  }
}
