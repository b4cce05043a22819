import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';

/**
 * Time-stamp token serial numbers (RFC 3161 §2.4.2: unique per TSA). 128 bits:
 *   48 bits  the clock's milliseconds (never going backwards within a process)
 *   24 bits  a counter within that millisecond
 *   56 bits  random
 * so serials strictly increase within a process, follow the clock across restarts, and stay unique
 * across several server processes (they differ in the random part) without shared state.
 */
export class TimeStampSerials {
  private lastMs = 0;
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  next(): bigint {
    const now = Math.max(Math.floor(this.clock.nowMs()), this.lastMs);
    if (now === this.lastMs) {
      this.seq += 1;
      if (this.seq >= 1 << 24) {
        this.lastMs += 1;
        this.seq = 0;
      }
    } else {
      this.lastMs = now;
      this.seq = 0;
    }
    const random = BigInt(`0x${randomBytes(7).toString('hex')}`);
    return (BigInt(this.lastMs) << 80n) | (BigInt(this.seq) << 56n) | random;
  }
}
