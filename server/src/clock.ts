/**
 * The one source of time. Production uses the system clock; tests pass a ManualClock and move it,
 * so every time-based rule (expiry, rotation grace, rate windows, retries) is tested without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

export class ManualClock implements Clock {
  private ms: number;
  constructor(startMs = Date.UTC(2026, 6, 1, 9, 0, 0)) {
    this.ms = startMs;
  }
  nowMs(): number {
    return this.ms;
  }
  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
