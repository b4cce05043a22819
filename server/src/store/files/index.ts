/**
 * File storage (DESIGN §1: store/ holds file storage too): the port, its backends, and the one
 * built from the settings. Keys: domain/fileKeys.ts.
 */
import type { Config } from '../../config.js';
import { FolderStorage } from './folder.js';
import { S3Storage } from './s3.js';
import type { FileStorage } from './storage.js';

export { FolderStorage } from './folder.js';
export { S3Storage, type S3StorageOptions } from './s3.js';
export { assertFileKey, FileKeyError, type FileStorage } from './storage.js';

/** The backend TAWQI_STORAGE names (folder when unset); settings already checked by loadConfig. */
export function fileStorageFromConfig(config: Config): FileStorage {
  switch (config.TAWQI_STORAGE ?? 'folder') {
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
