/**
 * The phases of POST /api/v1/signature_requests, as rules over a CPU profile's frames
 * (bench/support/profile.ts byPhase): a sample belongs to the phase of the first frame, from the
 * leaf up, that a rule matches. So a module with no rule (ids.ts, clock.ts, presenters/, Node's
 * crypto, a builtin) counts for whatever called it, and the rules only need to name the code that
 * owns each step. Within one table, the first rule that matches a frame decides: the rules naming a
 * function come before the rule for the rest of its file.
 *
 * What runs for one create, in order (server/src):
 * - HTTP parsing and middleware: Node's HTTP parser and streams, Express and its helpers,
 *   http/app.ts, http/middleware/{requestContext,requestLog,pathText,cors,jsonBody}.ts,
 *   http/pageHeaders.ts, http/operations.ts (request tracking, prom-client), the routes' dispatch
 *   (http/routes/registry.ts mountRoutes); the JSON body's parse (body-parser).
 * - key lookup and account: http/middleware/authenticate.ts, domain/keys.ts (the key's hash),
 *   store/apiKeys.ts, services/consoleCredentials.ts.
 * - rate limit: http/middleware/limits.ts, store/rateWindows.ts (a Map on SQLite, an upsert on PostgreSQL).
 * - idempotency lookup: http/middleware/idempotency.ts, store/idempotencyClaims.ts, store/idempotency.ts.
 * - validation: zod, http/routes/registry.ts parseWith, domain/inputText.ts (control characters),
 *   domain/signatureRequestInput.ts (the create's schema).
 * - the domain plan: the route's handler (http/routes/signatureRequests.ts, http/gates.ts),
 *   services/signatureRequests.ts (createSignatureRequest, the invitations), domain/ (createPlan.ts,
 *   requestRules.ts, requestStates.ts, workflows.ts…), delivery/messages.ts and domain/signingLinks.ts
 *   as the create renders its invitations (through invitationFor).
 * - SQL statements: better-sqlite3, Kysely, pg and its helpers, and store/ (repositories,
 *   compiled.ts, statementCache.ts, groupCommit.ts, pgGroupCommit.ts…) apart from the modules above
 *   and below. Split by the phase that ran them (`splitMs`).
 * - event snapshots and JSON: events/emit.ts, store/events.ts, the events' snapshots
 *   (services/signatureRequests.ts requestEventInput, signerEventInput), domain/eventTypes.ts, and
 *   the JSON columns of every row (store/rowCodec.ts).
 * - stored response: the response object (the route's `present`), its one JSON.stringify and the
 *   idempotency record (http/commitWrite.ts inTx, store/idempotency.ts completeIdempotency).
 * - response write: http/commitWrite.ts after the commit (res.end), Node's outgoing message and
 *   socket writes.
 * - outbox pickup and background: the message outbox (delivery/outbox.ts, deliverMessage.ts), the
 *   job runner (jobs/, retry.ts, leases.ts), the webhook dispatcher (webhooks/), the request log's
 *   buffer, the checkpointer, the runner's wake-up after a commit.
 * - GC: `(garbage collector)`. other: `(program)` (V8 and native code outside any function) and
 *   whatever no rule names.
 */
import { GC, type PhaseRule } from '../support/profile.js';

export const HTTP = 'HTTP parsing and middleware';
export const KEY = 'key lookup and account';
export const RATE_LIMIT = 'rate limit';
export const IDEMPOTENCY = 'idempotency lookup';
export const VALIDATION = 'validation';
export const PLAN = 'the domain plan';
export const SQL = 'SQL statements';
export const EVENTS = 'event snapshots and JSON';
export const STORED = 'stored response';
export const WRITE = 'response write';
export const BACKGROUND = 'outbox pickup and background';
export const GC_PHASE = 'GC';

/** The order of the list; `other` comes last. */
export const CREATE_PHASE_ORDER = [HTTP, KEY, RATE_LIMIT, IDEMPOTENCY, VALIDATION, PLAN, SQL, EVENTS, STORED, WRITE, BACKGROUND, GC_PHASE];

const src = (p: string): RegExp => new RegExp(`/server/src/${p}`);
const pkg = (names: string): RegExp => new RegExp(`/node_modules/(${names})/`);

/** Express 5 and the packages it and our middleware call on every request (and pino, prom-client). */
const HTTP_PACKAGES =
  'express|router|body-parser|raw-body|iconv-lite|safer-buffer|on-finished|ee-first|finalhandler|statuses|content-type|type-is|' +
  'media-typer|mime-types|mime-db|depd|http-errors|parseurl|path-to-regexp|encodeurl|escape-html|qs|bytes|unpipe|vary|debug|' +
  'send|proxy-addr|forwarded|ipaddr\\.js|fresh|accepts|negotiator|content-disposition|cookie|cookie-signature|etag|destroy|' +
  'setprototypeof|toidentifier|inherits|side-channel[^/]*|call-bound|call-bind-apply-helpers|get-intrinsic|es-errors|' +
  'pino|pino-std-serializers|sonic-boom|prom-client|bintrees|tdigest';

/** The database drivers and query builder. */
const SQL_PACKAGES =
  'better-sqlite3|bindings|kysely|pg|pg-pool|pg-protocol|pg-types|pg-int8|pg-connection-string|pgpass|postgres-[a-z]+|split2';

/** The rules, most specific first: a frame takes the phase of the first rule it matches. */
export const CREATE_PHASES: readonly PhaseRule[] = [
  { phase: GC_PHASE, url: /^$/, fn: new RegExp(`^${GC.replace(/[()]/g, '\\$&')}$`) },

  // Functions of files whose other code belongs to another phase. Run from source through tsx, an
  // arrow function kept in a const (`const present = (…) => …`, commitWrite's `inTx`) has no name
  // in the profile (tsx names it at run time with its __name helper, which V8's profiler does not
  // see): in commitWrite.ts the only unnamed function is inTx; in the route's file the unnamed ones
  // are `present` (the response object) and the handler itself, whose own code is a few checks.
  { phase: VALIDATION, url: src('http/routes/registry\\.ts'), fn: /^(parseWith|validationError|controlCharacterError|valueAt|paramName)$/ },
  { phase: STORED, url: src('http/routes/signatureRequests\\.ts'), fn: /^(present|commitWrite\.\w+|)$/ },
  { phase: STORED, url: src('http/commitWrite\\.ts'), fn: /^(inTx|auditConsoleWrite|)$/ },
  { phase: STORED, url: src('store/idempotency\\.ts'), fn: /^completeIdempotency$/ },
  // The security headers' wrapper of res.writeHead: Node's header serialisation runs under it.
  { phase: WRITE, url: src('http/pageHeaders\\.ts'), fn: /writeHead/ },
  {
    phase: EVENTS,
    url: src('services/signatureRequests\\.ts'),
    fn: /^(requestEventInput|signerEventInput|snapshotView|emitRequestEvent|emitSignerEvent|announceSend)$/,
  },
  { phase: BACKGROUND, url: src('store/(messages|jobs)\\.ts'), fn: /^(claimDue\w*|record\w*Outcomes?|release\w*|retry\w*|finish\w*)$/ },
  { phase: BACKGROUND, url: src('server\\.ts'), fn: /^afterCommit$/ },

  // HTTP: Express and our middleware.
  { phase: HTTP, url: pkg(HTTP_PACKAGES) },
  { phase: HTTP, url: src('http/(app|context|envelope|operations|pageHeaders)\\.ts') },
  { phase: HTTP, url: src('http/middleware/(requestContext|requestLog|pathText|cors|jsonBody)\\.ts') },
  { phase: HTTP, url: src('http/routes/registry\\.ts') },
  { phase: HTTP, url: src('(metrics|log)\\.ts') },

  { phase: KEY, url: src('http/middleware/authenticate\\.ts') },
  { phase: KEY, url: src('domain/(keys|consoleCredentials)\\.ts') },
  { phase: KEY, url: src('store/apiKeys\\.ts') },
  { phase: KEY, url: src('services/consoleCredentials\\.ts') },

  { phase: RATE_LIMIT, url: src('http/middleware/limits\\.ts') },
  { phase: RATE_LIMIT, url: src('store/rateWindows\\.ts') },

  { phase: IDEMPOTENCY, url: src('http/middleware/idempotency\\.ts') },
  { phase: IDEMPOTENCY, url: src('store/(idempotency|idempotencyClaims)\\.ts') },

  { phase: VALIDATION, url: pkg('zod') },
  { phase: VALIDATION, url: src('domain/(inputText|signatureRequestInput)\\.ts') },

  { phase: EVENTS, url: src('events/') },
  { phase: EVENTS, url: src('store/(events|rowCodec)\\.ts') },
  { phase: EVENTS, url: src('domain/eventTypes\\.ts') },

  { phase: WRITE, url: src('http/commitWrite\\.ts') },

  { phase: BACKGROUND, url: src('(delivery/(outbox|deliverMessage|index|smtp|whatsapp)|jobs/|webhooks/|retry|leases)') },
  { phase: BACKGROUND, url: src('store/(requestLogBuffer|requestLog|checkpointer)\\.ts') },
  { phase: BACKGROUND, url: src('services/(jobHandlers|requestLogRetention)\\.ts') },

  { phase: PLAN, url: src('http/(routes/signatureRequests|gates)\\.ts') },
  { phase: PLAN, url: src('services/(signatureRequests|codes|workflows)\\.ts') },
  // The create's rules; the domain's helpers (signingLinks.ts: a signing link's HMAC, nameMatch.ts…)
  // count for their caller: the plan's invitations, the response's signing URLs.
  { phase: PLAN, url: src('domain/(createPlan|requestRules|requestStates|workflows|plans|records|templates|money|branding)\\.ts') },

  // The group commit's own statements (BEGIN, SAVEPOINT, RELEASE, COMMIT: the fsync under `full`)
  // run with no request's code on the stack: told apart in the split of the SQL statements.
  { phase: SQL, url: src('store/(groupCommit|pgGroupCommit)\\.ts'), splitAs: 'the group commit (BEGIN, SAVEPOINT, COMMIT)' },
  { phase: SQL, url: pkg(SQL_PACKAGES) },
  { phase: SQL, url: src('store/') },

  // Node's own HTTP and stream code: counted for whatever called it when a rule names a caller.
  { phase: WRITE, url: /^node:(_http_outgoing|internal\/http)$/, fallback: true },
  {
    phase: WRITE,
    url: /^node:internal\/stream_base_commons$/,
    fn: /^(writev?Generic|writev|handleWriteReq|afterWriteDispatched|onWriteComplete)$/,
    fallback: true,
  },
  { phase: WRITE, url: /^node:net$/, fn: /^(_?writev?|_writeGeneric|Socket\._writev?|Socket\._writeGeneric)$/, fallback: true },
  {
    phase: HTTP,
    url: /^node:(_http_server|_http_common|_http_incoming|net|internal\/stream_base_commons|internal\/streams\/.*|events|stream)$/,
    fallback: true,
  },
];
