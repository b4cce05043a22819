/**
 * Console sessions: made at sign-in, found by the cookie's token, ended by idle time, by their
 * absolute end or by signing out. The stored id is the SHA-256 of the token (consoleCrypto.ts).
 *
 * Activity is written cheaply: last_seen_at moves at most once per TOUCH_SECONDS, not on every
 * request, so a busy console page costs reads only. The idle end is therefore judged on a time up
 * to TOUCH_SECONDS old: a session may end that much before its exact idle end, never after.
 */
import { nowSeconds } from '../clock.js';
import type { Config } from '../config.js';
import type { ServiceContext } from '../context.js';
import { getConsoleUser, type ConsoleUser } from '../store/consoleUsers.js';
import {
  deleteConsoleSession,
  deleteEndedSessions,
  getConsoleSession,
  insertConsoleSession,
  touchConsoleSession,
  type ConsoleSession,
} from '../store/consoleSessions.js';
import type { Tx } from '../store/types.js';
import { newSecretToken, sha256Hex } from './consoleCrypto.js';

/** How often activity is written. */
export const TOUCH_SECONDS = 60;
/** A session waiting for its second factor lives this long at most. */
export const SECOND_FACTOR_SECONDS = 10 * 60;

export interface SessionTimes {
  idleSeconds: number;
  absoluteSeconds: number;
}

export function sessionTimes(config: Pick<Config, 'TAWQI_CONSOLE_IDLE_MINUTES' | 'TAWQI_CONSOLE_SESSION_HOURS'>): SessionTimes {
  return { idleSeconds: config.TAWQI_CONSOLE_IDLE_MINUTES * 60, absoluteSeconds: config.TAWQI_CONSOLE_SESSION_HOURS * 3600 };
}

export interface NewSession {
  token: string;
  session: ConsoleSession;
}

/** Start a session in the caller's transaction. */
export async function startSession(
  trx: Tx,
  times: SessionTimes,
  now: number,
  user: Pick<ConsoleUser, 'id'>,
  stage: ConsoleSession['stage'],
  client: { ip: string; userAgent: string },
): Promise<NewSession> {
  const { token, id } = newSecretToken();
  const lifetime = stage === 'full' ? times.absoluteSeconds : Math.min(times.absoluteSeconds, SECOND_FACTOR_SECONDS);
  const session: ConsoleSession = {
    id,
    user_id: user.id,
    stage,
    created_at: now,
    last_seen_at: now,
    expires_at: now + lifetime,
    ip: client.ip,
    user_agent: client.userAgent.slice(0, 512),
  };
  await insertConsoleSession(trx, session);
  return { token, session };
}

export function sessionEnded(session: Pick<ConsoleSession, 'expires_at' | 'last_seen_at'>, times: SessionTimes, now: number): boolean {
  return now >= session.expires_at || now >= session.last_seen_at + times.idleSeconds;
}

/**
 * The live session of a cookie token and its active user, or null (unknown, ended, or the user
 * disabled). Records activity when the last record is TOUCH_SECONDS old.
 */
export async function findLiveSession(ctx: ServiceContext, token: string): Promise<{ session: ConsoleSession; user: ConsoleUser } | null> {
  const times = sessionTimes(ctx.config);
  const now = nowSeconds(ctx.clock);
  const session = await getConsoleSession(ctx.store.db, sha256Hex(token));
  if (!session) return null;
  if (sessionEnded(session, times, now)) {
    await ctx.store.tx((trx) => deleteConsoleSession(trx, session.id));
    return null;
  }
  const user = await getConsoleUser(ctx.store.db, session.user_id);
  if (!user || user.status !== 'active') return null;
  if (now - session.last_seen_at >= TOUCH_SECONDS) {
    await ctx.store.tx((trx) => touchConsoleSession(trx, session.id, now));
    session.last_seen_at = now;
  }
  return { session, user };
}

const SWEEP_SECONDS = 60;
let lastSweep = 0;

/**
 * Delete ended sessions so the table stays small: after a sign-in, at most once a minute per
 * process, in a transaction of its own (on PostgreSQL a scan of the table inside the sign-in's
 * SERIALIZABLE transaction would make concurrent sign-ins conflict). A failure only waits for the next.
 */
export function sweepEndedSessions(ctx: ServiceContext): void {
  const now = nowSeconds(ctx.clock);
  if (now - lastSweep < SWEEP_SECONDS && now >= lastSweep) return;
  lastSweep = now;
  ctx.store
    .tx((trx) => deleteEndedSessions(trx, now, sessionTimes(ctx.config).idleSeconds))
    .catch((err: unknown) => ctx.log.warn({ err }, 'sweeping ended console sessions failed; the next sign-in sweeps again'));
}
