/**
 * What the two bare servers (baseline-server.ts on better-sqlite3, baseline-pg-server.ts on pg)
 * share: their tables, ids, the JSON they answer, and the rows they seed. Plain functions, nothing
 * of Tawqi: the floor for "Express + the engine's driver" doing the reads and writes of each hot path.
 * The JSON objects have the fields of Tawqi's (spec 2.1, 2.2, 6.2), so both servers answer about
 * as many bytes (each result line carries bytes_per_response to check it).
 */
import { createHash, randomBytes } from 'node:crypto';

/** Tables of both engines (INTEGER/BIGINT aside); ids time-ordered so `ORDER BY id DESC` is newest first. */
export const TABLES = (bigint: 'INTEGER' | 'BIGINT'): string => `
  CREATE TABLE api_keys (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, mode TEXT NOT NULL, secret_hash TEXT NOT NULL UNIQUE, revoked_at ${bigint});
  CREATE TABLE requests (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, livemode INTEGER NOT NULL, status TEXT NOT NULL, title TEXT NOT NULL,
    template_id TEXT NOT NULL, metadata TEXT NOT NULL, reference TEXT, completed_at ${bigint}, expires_at ${bigint}, created_at ${bigint} NOT NULL);
  CREATE TABLE signers (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL, email TEXT,
    status TEXT NOT NULL, fields TEXT NOT NULL, signature_image TEXT, sent_at ${bigint}, viewed_at ${bigint}, signed_at ${bigint});
  CREATE INDEX signers_by_request ON signers (request_id, position);
  CREATE TABLE page_sessions (token_hash TEXT PRIMARY KEY, signer_id TEXT NOT NULL, expires_at ${bigint} NOT NULL);
  CREATE TABLE events (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, livemode INTEGER NOT NULL, type TEXT NOT NULL,
    request_id TEXT, data TEXT NOT NULL, created_at ${bigint} NOT NULL);
  CREATE INDEX events_by_account ON events (account_id, livemode, id);`;

export interface RequestRow {
  id: string;
  account_id: string;
  livemode: number;
  status: string;
  title: string;
  template_id: string;
  metadata: string;
  reference: string | null;
  completed_at: number | null;
  expires_at: number | null;
  created_at: number;
}

export interface SignerRow {
  id: string;
  request_id: string;
  position: number;
  name: string;
  email: string | null;
  status: string;
  fields: string;
  signature_image: string | null;
  sent_at: number | null;
  viewed_at: number | null;
  signed_at: number | null;
}

export interface KeyRow {
  id: string;
  account_id: string;
  mode: string;
  revoked_at: number | null;
}

export interface EventRow {
  id: string;
  account_id: string;
  livemode: number;
  type: string;
  request_id: string | null;
  data: string;
  created_at: number;
}

let sequence = 0;
/** A time-ordered id (milliseconds, a counter, random) of Tawqi's length. */
export const newId = (prefix: string): string =>
  `${prefix}_${Date.now().toString(36)}${(++sequence % 46656).toString(36).padStart(3, '0')}${randomBytes(7).toString('hex')}`;
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
export const now = (): number => Math.floor(Date.now() / 1000);

/** The bearer key of a request, or null. */
export const bearer = (header: string | undefined): string | null => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? null;

export function signerObject(s: SignerRow) {
  return {
    id: s.id,
    object: 'signer',
    signature_request: s.request_id,
    name: s.name,
    email: s.email,
    phone: null,
    type: 'individual',
    method: 'draw',
    require_identity: false,
    order: s.position,
    status: s.status,
    signing_url: null,
    sent_at: s.sent_at,
    viewed_at: s.viewed_at,
    signed_at: s.signed_at,
    identity: { status: 'not_required', provider: null, level: null, verification_id: null, name_match: null },
    fields: JSON.parse(s.fields) as Record<string, string>,
  };
}

export function requestObject(r: RequestRow, signers: readonly SignerRow[]) {
  return {
    id: r.id,
    object: 'signature_request',
    livemode: r.livemode === 1,
    status: r.status,
    title: r.title,
    legal_level: 'ses',
    format: 'platform-evidence',
    language: 'en',
    source: { type: 'template', template_id: r.template_id },
    ordered: false,
    require_identity: false,
    reference: r.reference,
    reminders: { enabled: false, interval_hours: 48, max: 3 },
    expires_at: r.expires_at,
    completed_at: r.completed_at,
    download_url: null,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    created_at: r.created_at,
    signers: signers.map(signerObject),
  };
}

export function eventObject(e: EventRow) {
  return {
    id: e.id,
    object: 'event',
    type: e.type,
    created_at: e.created_at,
    livemode: e.livemode === 1,
    data: JSON.parse(e.data) as unknown,
    request: null,
  };
}

/** What the signer's page gets back after signing (a short page state). */
export const signedState = (r: Pick<RequestRow, 'id' | 'title' | 'status'>, s: SignerRow) => ({
  language: 'en',
  livemode: false,
  server_time: now(),
  step: 'signed',
  request: { id: r.id, title: r.title, status: r.status, legal_level: 'ses' },
  signer: { id: s.id, name: s.name, status: 'signed', order: s.position, method: 'draw', identity_status: 'not_required' },
  document: { text: 'This agreement is made between the parties below. ' },
});

/** `?limit=` as Tawqi reads it: 1 to 100, default 20 (null when out of range). */
export function limitOf(value: unknown): number | null {
  if (value === undefined) return 20;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : null;
}

/** The seed: one request of `signerCount` signers (the team's names), sent, and its events as Tawqi writes them. */
export function seedRequest(accountId: string, signerCount: number, names: readonly { name: string; email: string }[]) {
  const t = now();
  const request: RequestRow = {
    id: newId('sr'),
    account_id: accountId,
    livemode: 0,
    status: 'sent',
    title: 'Benchmark agreement',
    template_id: newId('tpl'),
    metadata: '{}',
    reference: null,
    completed_at: null,
    expires_at: t + 30 * 86400,
    created_at: t,
  };
  const signers: SignerRow[] = names.slice(0, signerCount).map((n, i) => ({
    id: newId('sgr'),
    request_id: request.id,
    position: i + 1,
    name: n.name,
    email: n.email,
    status: 'sent',
    fields: '{}',
    signature_image: null,
    sent_at: t,
    viewed_at: null,
    signed_at: null,
  }));
  const event = (type: string, requestId: string, object: unknown): EventRow => ({
    id: newId('evt'),
    account_id: accountId,
    livemode: 0,
    type,
    request_id: requestId,
    data: JSON.stringify({ object }),
    created_at: t,
  });
  const events = [
    event('signature_request.sent', request.id, requestObject(request, signers)),
    ...signers.map((s) => event('signer.sent', request.id, signerObject(s))),
  ];
  return { request, signers, events };
}

/** A signer's page token: random, stored as its SHA-256 (as Tawqi stores its page tokens). */
export const newToken = (): string => randomBytes(24).toString('base64url');
