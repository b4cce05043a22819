import type { JobHandler } from '../jobs/runner.js';
import { runAutoReminder, runExpiry } from './signatureRequests.js';
import { runSeal } from './sealing.js';
import { PASSWORD_RESET_JOB, sendPasswordReset } from './consolePasswordReset.js';

/** Every job kind the runner knows. */
export const JOB_HANDLERS: Record<string, JobHandler> = {
  expire_request: { kind: 'transactional', run: (ctx, trx, p) => runExpiry(ctx, trx, String(p.signature_request_id)) },
  auto_reminder: { kind: 'transactional', run: (ctx, trx, p) => runAutoReminder(ctx, trx, String(p.signature_request_id)) },
  seal_request: { kind: 'external', run: (ctx, p, job) => runSeal(ctx, p, job) },
  [PASSWORD_RESET_JOB]: { kind: 'transactional', run: (ctx, trx, p) => sendPasswordReset(ctx, trx, p) },
};
