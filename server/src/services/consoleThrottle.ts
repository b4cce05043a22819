/**
 * Sign-in throttles of the console: attempts (password and second factor alike) per account email
 * and per client address, each a fixed window (store/rateWindows.ts): in the process's memory on
 * SQLite (one server process), rows of rate_windows on PostgreSQL, shared by every process of the
 * database. Every attempt counts, good or bad: counting failures only would need a read before
 * the hash, and a person signing in ten times in fifteen minutes is not a case to serve.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { rateWindows, type RateWindows, type WindowResult } from '../store/rateWindows.js';
import type { Store } from '../store/types.js';

export class SignInThrottle {
  readonly #byEmail: RateWindows;
  readonly #byAddress: RateWindows;

  constructor(store: Store, config: Config, log: Logger) {
    const windowMs = config.TAWQI_CONSOLE_SIGN_IN_WINDOW_SECONDS * 1000;
    const onSweepError = (err: unknown) => log.warn({ err }, 'sweeping ended sign-in windows failed; the next window sweeps again');
    this.#byEmail = rateWindows(store, { scope: 'console:email', limit: config.TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT, windowMs, onSweepError });
    this.#byAddress = rateWindows(store, { scope: 'console:ip', limit: config.TAWQI_CONSOLE_SIGN_IN_IP_LIMIT, windowMs, onSweepError });
  }

  /** Count one attempt for this email from this address; throws 429 too_many_requests past either limit. */
  async attempt(email: string, ip: string, clock: Clock): Promise<void> {
    const now = clock.nowMs();
    refuseIfOver(await this.#byAddress.hit(ip, now));
    refuseIfOver(await this.#byEmail.hit(email.toLowerCase(), now));
  }
}

function refuseIfOver(r: WindowResult): void {
  if (r.allowed) return;
  const minutes = Math.ceil(r.retryAfter / 60);
  throw new ApiError(
    'too_many_requests',
    null,
    { retry_after: r.retryAfter },
    { 'Retry-After': String(r.retryAfter) },
    {
      en: `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      ar: `محاولات تسجيل دخول كثيرة جدًا. أعد المحاولة بعد ${minutes} دقيقة.`,
    },
  );
}
