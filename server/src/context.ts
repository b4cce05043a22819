import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { ServerSecrets } from './secrets.js';
import type { FileStorage } from './store/files/index.js';
import type { RequestLogBuffer } from './store/requestLogBuffer.js';
import type { Store } from './store/types.js';
import type { MessageTransport } from './transport.js';
import type { Pki } from './sealing/pki/pki.js';

/**
 * The application context, at the bottom so every layer can name it: what services need, no HTTP
 * (the HTTP layer's AppContext extends it). Engines take narrower parts of it. The PKI is named by
 * its type only (sealing/pki imports nothing above the bottom modules).
 */
export interface ServiceContext {
  config: Config;
  store: Store;
  /** Final PDFs (and other files) by key: DATA_DIR folder or S3 bucket (TAWQI_STORAGE). */
  files: FileStorage;
  clock: Clock;
  log: Logger;
  secrets: ServerSecrets;
  /** Base address signers and downloads are reached at (TAWQI_PUBLIC_URL, else the listen address). */
  publicUrl: string;
  /** Called after a write transaction commits, to wake the job runner. */
  afterCommit: () => void;
  /** The request log's in-memory buffer: each /api/v1 request adds its entry, written in batches. */
  requestLog: RequestLogBuffer;
  /** Outbound messages; absent when no transport is configured (messages are then held). */
  transport?: MessageTransport;
  /** Local CA, seal, TSA, OCSP/CRL and the evidence key (server/src/sealing/pki). */
  pki: Pki;
}
