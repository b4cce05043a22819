/**
 * A Tawqi create's SQL, recorded once and run again at will (replay-server.ts, the data-model
 * floor): `captureCreate` runs the real server in this process (bench/support/tawqiSetup.ts: the
 * benchmark's account, template and settings) and records the statements of its second create with
 * their values (bench/support/statements.ts); `CreateReplay` runs them again on that database with
 * fresh ids, on a connection opened as the store opens its own.
 *
 * Fresh values per create: every id the create makes (an id token its writes carry that none of
 * its reads looks up: the request's, the signers', the events'; not the account's, the key's or the
 * template's), made as Tawqi makes ids (time-ordered, so B-tree inserts stay local), and the
 * Idempotency-Key (a UUID), each replaced wherever it occurs (JSON and message bodies included).
 * The test-mode day counters and the template and key reads stay the same.
 */
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { ID_PREFIX, type IdKind } from '@tawqi/shared';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { newId } from '../../server/src/ids.js';
import { startServer } from '../../server/src/server.js';
import { databasePath, SQLITE_CACHE_KIB, SQLITE_MMAP_BYTES } from '../../server/src/store/db.js';
import { benchAccount, benchSettings } from '../support/tawqiSetup.js';
import { watchStatements } from '../support/statements.js';
import { API_PATH, createBody, SIGNERS, TEMPLATE } from './workload.js';

export interface Captured {
  sql: string;
  values: unknown[];
}

export type Synchronous = 'full' | 'normal';

/** An id as ids.ts makes them (prefix, 24 base-62 characters), or an Idempotency-Key (a UUID). */
const TOKEN = new RegExp(
  `(?:${Object.values(ID_PREFIX).join('|')})[0-9A-Za-z]{24}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
  'g',
);
const WRITE = /^\s*(insert|update|delete|replace)/i;
/** The create's own BEGIN and COMMIT: a replay runs its creates in transactions of its choosing. */
const TRANSACTION = /^\s*(begin|commit)\b/i;
const KIND_OF_PREFIX = new Map(Object.entries(ID_PREFIX).map(([kind, prefix]) => [prefix, kind as IdKind]));

/**
 * The statements of one create on the real server in `dataDir` (left there, with its database),
 * with their values, and the create's response body.
 */
export async function captureCreate(dataDir: string, synchronous: Synchronous): Promise<{ statements: Captured[]; response: unknown }> {
  const running = await startServer(loadConfig(benchSettings(dataDir, { TAWQI_SQLITE_SYNCHRONOUS: synchronous })), {
    manualJobs: true,
  });
  try {
    const keys = await benchAccount(
      running,
      'Benchmark Co',
      SIGNERS.map((s) => s.email),
    );
    const post = async (p: string, body: string) => {
      const res = await fetch(running.url + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.secret_test}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
      });
      return { status: res.status, body: (await res.json()) as { id?: string } };
    };
    const template = await post('/api/v1/templates', JSON.stringify(TEMPLATE));
    const body = createBody(String(template.body.id));
    await post(API_PATH, body); // warms the caches: the second create is the one recorded
    const statements: Captured[] = [];
    // The request log's flush (once a second, whatever the requests) is no part of a create.
    const unwatch = await watchStatements(running.ctx.store, (sql, _connection, values) => {
      if (!/\brequest_log\b/.test(sql)) statements.push({ sql, values: [...(values ?? [])] });
    });
    let created: Awaited<ReturnType<typeof post>>;
    try {
      created = await post(API_PATH, body);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the idempotency release runs on 'finish'
    } finally {
      unwatch();
    }
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    return { statements, response: created.body };
  } finally {
    await running.close();
  }
}

/** What each create makes anew (above): ids its writes carry that none of its reads looks up, and every UUID. */
export function madeIds(statements: readonly Captured[]): Set<string> {
  const read = new Set<string>();
  const made = new Set<string>();
  for (const s of statements) {
    const write = WRITE.test(s.sql);
    for (const v of s.values) {
      if (typeof v !== 'string') continue;
      for (const token of v.match(TOKEN) ?? []) {
        if (token.includes('-')) made.add(token);
        else (write ? made : read).add(token);
      }
    }
  }
  for (const token of read) made.delete(token);
  return made;
}

/** The database in `dataDir`, on a connection with the store's settings (store/db.ts), SQLite's own checkpoints. */
export function openLikeTheStore(dataDir: string, synchronous: Synchronous): SQLite.Database {
  const db = new SQLite(databasePath(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('temp_store = MEMORY');
  db.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  db.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
  return db;
}

/** A new id of the same kind, made as Tawqi makes ids, or a new UUID. */
function freshToken(token: string): string {
  if (token.includes('-')) return randomUUID();
  return newId(KIND_OF_PREFIX.get(token.slice(0, token.length - 24) as (typeof ID_PREFIX)[IdKind])!, systemClock);
}

/** The captured create's statements (its BEGIN and COMMIT left out), run again with fresh values. */
export class CreateReplay {
  readonly #made: Set<string>;
  /**
   * Per statement: its prepared form, its values and, for each value that carries a made id, the
   * value cut around its tokens (text, token, text, …), so a create puts its fresh ids in by
   * joining pieces rather than by searching the text (the events' JSON, the messages' bodies).
   */
  readonly #steps: { statement: SQLite.Statement; reader: boolean; values: unknown[]; pieces: (string[] | null)[] }[];

  constructor(db: SQLite.Database, captured: readonly Captured[]) {
    const made = madeIds(captured);
    this.#made = made;
    this.#steps = captured
      .filter((s) => !TRANSACTION.test(s.sql))
      .map((s) => {
        const statement = db.prepare(s.sql);
        const pieces = s.values.map((v) =>
          typeof v === 'string' && (v.match(TOKEN) ?? []).some((t) => made.has(t)) ? v.split(new RegExp(`(${TOKEN.source})`)) : null,
        );
        return { statement, reader: statement.reader, values: s.values, pieces };
      });
  }

  /** One create, inside the caller's transaction. */
  create(): void {
    const renamed = new Map<string, string>();
    const rename = (token: string): string => {
      if (!this.#made.has(token)) return token;
      let fresh = renamed.get(token);
      if (fresh === undefined) renamed.set(token, (fresh = freshToken(token)));
      return fresh;
    };
    for (const step of this.#steps) {
      const values = step.values.map((v, i) => {
        const pieces = step.pieces[i];
        if (!pieces) return v;
        let text = pieces[0]!;
        for (let k = 1; k < pieces.length; k += 2) text += rename(pieces[k]!) + pieces[k + 1]!;
        return text;
      });
      if (step.reader) step.statement.all(values);
      else step.statement.run(values);
    }
  }
}
