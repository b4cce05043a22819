/** Messages between the main thread (TokenService) and the token worker (worker.ts). */
import type { ModuleSpec } from './modules.js';
import type { ModuleStatus, ScanResult, SignJob, SignOutcome } from './backend.js';

export type WorkerCall =
  | { op: 'init'; modules: ModuleSpec[] }
  | { op: 'scan'; objects: boolean }
  | { op: 'sign'; job: SignJob }
  | { op: 'flags'; slot: string }
  | { op: 'close' };

export interface WorkerResults {
  init: ModuleStatus[];
  scan: ScanResult;
  sign: SignOutcome;
  flags: number | null;
  close: null;
}

export type WorkerRequest = WorkerCall & { id: number };
export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
