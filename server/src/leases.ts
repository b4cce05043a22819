import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Claim } from './store/types.js';

/**
 * Leases on background work: jobs, the message outbox and webhook deliveries are claimed, not
 * assumed (store/jobs.ts, store/messages.ts, store/webhooks.ts). A process takes entries under a
 * claim whose token names the process and the claim; each entry stays its for TAWQI_LEASE_SECONDS,
 * after which any process may take it again. So a process that dies (or hangs) holding work loses
 * it after a bounded time, and a process that starts takes over only leases that have ended.
 * Times come from the injected clock: tests move it instead of waiting.
 */
export class Leases {
  /** This process: host, pid and a random tag (a restarted process with the same pid is another owner). */
  readonly owner: string;
  private claims = 0;

  constructor(
    /** How long a claim holds its entries (TAWQI_LEASE_SECONDS). */
    readonly seconds: number,
    owner?: string,
  ) {
    this.owner = owner ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  }

  /** A new claim at `now`: a token no other claim has, and the end of its lease. */
  claim(now: number): Claim {
    this.claims++;
    return { token: `${this.owner}#${this.claims}`, now, until: now + this.seconds };
  }

  /**
   * Whether an entry taken under `claim` may still be started at `now`: while at least half of the
   * lease is left. Entries are worked one after another, so a batch could outlast its lease; an
   * entry started in the first half (and every attempt is bounded well below half a lease: see
   * config.ts) finishes before another process may take it over. The rest are given back.
   */
  mayStart(claim: Claim, now: number): boolean {
    return now <= claim.until - this.seconds / 2;
  }
}
