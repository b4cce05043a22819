/**
 * A local identity provider speaking the generic protocol of server/src/identity/README.md over
 * real HTTP on 127.0.0.1: it accepts `POST /v1/verifications` (bearer key checked, `reference`
 * idempotent) and lets a test send the signed result callback the server would receive.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderSession {
  id: string;
  reference: string;
  expected_name: string;
  level: string;
  callback_url: string;
  return_url: string | null;
  /** How many times the server opened (or resumed) this session. */
  opened: number;
}

export interface CallbackDocument {
  name: string;
  type: string;
  number_last4?: string | null;
}

export interface CallbackOptions {
  document?: CallbackDocument;
  /** Sign with this secret instead of the shared one (a forgery). */
  secret?: string;
  /** Sign with this timestamp instead of now (a stale callback). */
  timestamp?: number;
  /** Send this header instead of the computed one. */
  signatureHeader?: string | null;
  /** Change the body after signing (a tampered callback). */
  tamper?: (body: string) => string;
  /** Leave out the echoed reference (the server then finds the verification by the provider id). */
  omitReference?: boolean;
  headers?: Record<string, string>;
}

export interface CallbackResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface IdentityProviderPeer {
  url: string;
  apiKey: string;
  callbackSecret: string;
  /** Every session opened, by provider id. */
  sessions: Map<string, ProviderSession>;
  /** Every POST /v1/verifications received, accepted or not. */
  requests: { authorization: string | undefined; body: unknown; status: number }[];
  /** Answer the next create calls with this status instead (e.g. 503), then recover. */
  failNext(count: number, status?: number): void;
  /** The clock the peer signs with (set to the server's manual clock). */
  now: () => number;
  sessionFor(reference: string): ProviderSession | undefined;
  /** Send a signed result callback for a session (by provider id or our reference). */
  callback(idOrReference: string, status: string, opts?: CallbackOptions): Promise<CallbackResponse>;
  close(): Promise<void>;
}

export function signProviderPayload(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export async function startIdentityProvider(opts: { apiKey?: string; callbackSecret?: string } = {}): Promise<IdentityProviderPeer> {
  const apiKey = opts.apiKey ?? 'idp_test_key_7f3a9c';
  const callbackSecret = opts.callbackSecret ?? 'idp_callback_secret_0123456789abcdef';
  const sessions = new Map<string, ProviderSession>();
  const requests: IdentityProviderPeer['requests'] = [];
  let failures = 0;
  let failStatus = 503;
  let counter = 0;
  let url = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/verifications') return send(404, { error: 'not_found' });
      let body: Record<string, unknown> | null = null;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = null;
      }
      const record = (status: number) => requests.push({ authorization: req.headers.authorization, body, status });
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        record(401);
        return send(401, { error: 'unauthorized' });
      }
      if (failures > 0) {
        failures -= 1;
        record(failStatus);
        return send(failStatus, { error: 'unavailable' });
      }
      const valid =
        body !== null &&
        typeof body.reference === 'string' &&
        typeof body.expected_name === 'string' &&
        typeof body.level === 'string' &&
        typeof body.callback_url === 'string' &&
        (body.return_url === null || typeof body.return_url === 'string');
      if (!valid) {
        record(400);
        return send(400, { error: 'invalid_request' });
      }
      const b = body as Record<string, string>;
      // `reference` is an idempotency key: the same reference resumes the same session.
      let session = [...sessions.values()].find((s) => s.reference === b.reference);
      if (!session) {
        session = {
          id: `pv_${++counter}_${Math.random().toString(36).slice(2, 10)}`,
          reference: b.reference!,
          expected_name: b.expected_name!,
          level: b.level!,
          callback_url: b.callback_url!,
          return_url: b.return_url ?? null,
          opened: 0,
        };
        sessions.set(session.id, session);
      }
      session.opened += 1;
      record(201);
      send(201, { id: session.id, url: `${url}/verify/${session.id}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const peer: IdentityProviderPeer = {
    url,
    apiKey,
    callbackSecret,
    sessions,
    requests,
    now: () => Math.floor(Date.now() / 1000),
    failNext(count, status = 503) {
      failures = count;
      failStatus = status;
    },
    sessionFor: (reference) => [...sessions.values()].find((s) => s.reference === reference),
    async callback(idOrReference, status, o = {}) {
      const session = sessions.get(idOrReference) ?? peer.sessionFor(idOrReference);
      if (!session) throw new Error(`no provider session ${idOrReference}`);
      const payload: Record<string, unknown> = { id: session.id, status };
      if (!o.omitReference) payload.reference = session.reference;
      if (o.document) payload.document = o.document;
      const body = JSON.stringify(payload);
      const t = o.timestamp ?? peer.now();
      const header = o.signatureHeader === undefined ? signProviderPayload(o.secret ?? callbackSecret, t, body) : o.signatureHeader;
      const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
      if (header !== null) headers['x-provider-signature'] = header;
      const res = await fetch(session.callback_url, { method: 'POST', headers, body: o.tamper ? o.tamper(body) : body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return peer;
}
