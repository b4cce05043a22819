import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { ServerSecrets } from '../secrets.js';
import type { Store } from '../store/db.js';
import type { MessageTransport } from '../delivery/transport.js';
import type { Pki } from '../sealing/pki/index.js';

/** What services need: no HTTP. The HTTP layer's AppContext extends it. */
export interface ServiceContext {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  secrets: ServerSecrets;
  /** Base address signers and downloads are reached at (TAWQI_PUBLIC_URL, else the listen address). */
  publicUrl: string;
  /** Called after a write transaction commits, to wake the job runner. */
  afterCommit: () => void;
  /** Outbound messages; absent when no transport is configured (messages are then held). */
  transport?: MessageTransport;
  /** Local CA, seal, TSA, OCSP/CRL and the evidence key (server/src/sealing/pki). */
  pki: Pki;
}
