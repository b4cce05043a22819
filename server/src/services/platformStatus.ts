/**
 * The operator's platform status (GET /console/api/admin/status): each outside service — whether it
 * is configured, where (host and port only: never a user, password or token), a cheap reachability
 * probe (one TCP connect, 2 s at most, no protocol spoken) and the last outcome the server saw; the
 * database engine and version; the job queue, message outbox and webhook deliveries (depth and
 * oldest pending age by the injected clock); the PKI certificates with their expiry and days left.
 */
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:net';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { smtpSettings } from '../delivery/index.js';
import { whatsappSettings } from '../delivery/whatsapp.js';
import { databaseVersion, jobQueueDepth, lastSend, outboxDepth, webhookQueueDepth, type QueueDepth } from '../store/platformStatus.js';

const PROBE_TIMEOUT_MS = 2000;
const DAY = 86_400;

export interface Endpoint {
  host: string;
  port: number;
}

export interface Reachability {
  reachable: boolean;
  /** The connect error's code (ECONNREFUSED, ETIMEDOUT, ENOTFOUND, …) when not reachable. */
  error: string | null;
  elapsed_ms: number;
}

/** One TCP connect to the endpoint: reachable or why not. Nothing is sent. */
export function probe(target: Endpoint, timeoutMs = PROBE_TIMEOUT_MS): Promise<Reachability> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port });
    const done = (error: string | null) => {
      socket.destroy();
      resolve({ reachable: error === null, error, elapsed_ms: Date.now() - started });
    };
    socket.setTimeout(timeoutMs, () => done('ETIMEDOUT'));
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? 'ERROR'));
  });
}

/** Host and port of an http(s) URL (the default port of its scheme when none). */
export function endpointOf(url: string): Endpoint {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
}

async function service(target: Endpoint | null, extra: Record<string, unknown> = {}) {
  if (!target) return { configured: false, endpoint: null, probe: null, ...extra };
  return { configured: true, endpoint: target, probe: await probe(target), ...extra };
}

export interface CertificateStatus {
  name: 'ca' | 'seal' | 'tsa' | 'ocsp';
  subject: string;
  serial: string;
  not_after: number;
  days_left: number;
  built_in: boolean;
}

function certificates(ctx: ServiceContext, now: number): CertificateStatus[] {
  const { pki } = ctx;
  const of = (name: CertificateStatus['name'], der: Uint8Array, builtIn: boolean): CertificateStatus => {
    const cert = new X509Certificate(Buffer.from(der));
    const notAfter = Math.floor(new Date(cert.validTo).getTime() / 1000);
    return {
      name,
      subject: cert.subject.replace(/\n/g, ', '),
      serial: cert.serialNumber,
      not_after: notAfter,
      days_left: Math.floor((notAfter - now) / DAY),
      built_in: builtIn,
    };
  };
  return [
    of('ca', pki.ca.certificate, true),
    of('seal', pki.seal.certificate, pki.operatorSeal === null),
    of('tsa', pki.tsa.certificate, true),
    of('ocsp', pki.ocsp.certificate, true),
  ];
}

const age = (q: QueueDepth, now: number) => ({
  ...q,
  oldest_age_seconds: q.oldest_created_at === null ? null : Math.max(0, now - q.oldest_created_at),
});

export async function platformStatus(ctx: ServiceContext) {
  const now = nowSeconds(ctx.clock);
  const db = ctx.store.db;
  const smtp = smtpSettings(ctx.config);
  const whatsapp = whatsappSettings(ctx.config);
  const identityUrl = ctx.config.TAWQI_IDENTITY_PROVIDER_URL;
  const tsaUrl = ctx.pki.externalTsaUrl;
  const [email, wa, identity, tsa, version, jobs, outbox, webhooks, lastEmail, lastWhatsapp] = await Promise.all([
    service(smtp && { host: smtp.host, port: smtp.port }, {
      tls: smtp ? (smtp.secure ? 'implicit' : smtp.requireTLS ? 'starttls_required' : 'starttls_when_offered') : null,
    }),
    service(whatsapp && endpointOf(whatsapp.baseUrl)),
    service(identityUrl ? endpointOf(identityUrl) : null, { mode: identityUrl ? 'provider' : 'simulation' }),
    tsaUrl ? service(endpointOf(tsaUrl), { mode: 'external' }) : { configured: true, endpoint: null, probe: null, mode: 'built_in' },
    databaseVersion(ctx.store),
    jobQueueDepth(db),
    outboxDepth(db),
    webhookQueueDepth(db),
    lastSend(db, 'email'),
    lastSend(db, 'whatsapp'),
  ]);
  return {
    object: 'platform_status' as const,
    checked_at: now,
    smtp: { ...email, last_send: lastEmail },
    whatsapp: { ...wa, last_send: lastWhatsapp },
    identity_provider: identity,
    tsa,
    database: { engine: ctx.store.dialect, version },
    queues: { jobs: age(jobs, now), outbox: age(outbox, now), webhook_deliveries: age(webhooks, now) },
    pki: {
      certificates: certificates(ctx, now),
      // Evidence records are signed with a bare Ed25519 key: no certificate, so no expiry.
      evidence_key: { key_id: ctx.pki.evidence.keyId, algorithm: 'Ed25519', not_after: null },
    },
  };
}
