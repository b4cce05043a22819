/**
 * One signature request from creation to its last webhook, through the real HTTP API, in phases a
 * driver can measure apart. The server runs in this process with jobs run by hand (manualJobs, as
 * the tests do), so each phase's background work runs inside that phase and nowhere else:
 *
 * - create: POST /api/v1/signature_requests (live key, the seal benchmark's two-page template, two
 *   signers, an Idempotency-Key), then the jobs it leaves (its two invitations sent by SMTP);
 * - sign (once per signer): the signing link's page, POST /view, /otp/send, the code's email sent,
 *   POST /otp/verify with the code the SMTP peer received, POST /sign with a drawn signature (600×200
 *   PNG); then the jobs it leaves, except after the last signature;
 * - seal: the jobs the completing signature left (the seal job, the completion emails);
 * - deliver: every webhook delivery due (one endpoint subscribed to every event), sent to a real
 *   HTTPS receiver.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { startSmtpPeer, type SmtpPeer } from '../../test/support/smtpPeer.js';
import { makeTestCa, WebhookReceiver, type TestCa } from '../../test/support/webhookReceiver.js';
import { dataUrl, FIELD_VALUES, signaturePng, TEMPLATE } from '../seal/workload.js';

export const SIGNERS_PER_REQUEST = 2;
/** Two drawn signatures (~18 KB PNG each), made once. */
const SIGNATURES = Array.from({ length: SIGNERS_PER_REQUEST }, (_, i) => dataUrl(signaturePng(i + 1)));

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A created request: its id and each signer's id, email and signing link. */
export interface Created {
  id: string;
  format: string;
  signers: { id: string; email: string; url: string }[];
}

export class Lifecycles {
  private constructor(
    readonly running: RunningServer,
    private readonly dataDir: string,
    private readonly smtp: SmtpPeer,
    private readonly receiver: WebhookReceiver,
    private readonly ca: TestCa,
    private key = '',
    private templateId = '',
  ) {}

  /** The server on `settings` (the database's), an SMTP peer, a webhook receiver, an account with a template and an endpoint. */
  static async start(settings: Record<string, string>): Promise<Lifecycles> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-capacity-'));
    const smtp = await startSmtpPeer();
    const ca = makeTestCa();
    const receiver = await WebhookReceiver.start(ca);
    let running: RunningServer | null = null;
    try {
      const config = loadConfig({
        ...settings,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        TAWQI_LOG_LEVEL: 'silent',
        TAWQI_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        TAWQI_SMTP_FROM: 'Tawqi <no-reply@capacity.example>',
        TAWQI_RATE_LIMIT: '100000000',
        TAWQI_IP_RATE_LIMIT: '100000000',
        TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      running = await startServer(config, { manualJobs: true, webhookCa: ca.caPem });
      const lifecycles = new Lifecycles(running, dataDir, smtp, receiver, ca);
      await lifecycles.prepareAccount();
      return lifecycles;
    } catch (err) {
      await running?.close();
      await receiver.close();
      await smtp.close();
      ca.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
  }

  private async prepareAccount(): Promise<void> {
    const { keys } = await createAccount(this.running.ctx.store, systemClock, {
      name: 'Capacity Benchmark Co',
      plan: 'enterprise',
      planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
      kyb: 'approved',
      balanceSends: 100_000_000,
      walletMinor: 0,
      currency: this.running.ctx.config.TAWQI_CURRENCY,
    });
    this.key = keys.secret_live;
    const template = expect(await this.api('POST', '/templates', TEMPLATE), 201, 'POST /templates');
    this.templateId = template.body.id as string;
    expect(
      await this.api('POST', '/webhook_endpoints', { url: this.receiver.url('/capacity'), enabled_events: ['*'] }),
      201,
      'POST /webhook_endpoints',
    );
  }

  async close(): Promise<void> {
    await this.running.close();
    await this.receiver.close();
    await this.smtp.close();
    this.ca.cleanup();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private async api(method: string, p: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': randomUUID() });
    const res = await fetch(`${this.running.url}/api/v1${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  /** Phase create: the request (signers with addresses of their own, so each code is found by address) and its invitations. */
  async create(n: number): Promise<Created> {
    const signers = Array.from({ length: SIGNERS_PER_REQUEST }, (_, i) => ({
      name: i === 0 ? 'Amira Hassan' : 'Omar Farouk',
      email: `signer${i}.request${n}.${randomUUID().slice(0, 8)}@capacity.example`,
      fields: i === 0 ? FIELD_VALUES : {},
    }));
    const created = expect(
      await this.api('POST', '/signature_requests', {
        title: 'Master Services Agreement',
        source: { type: 'template', template_id: this.templateId },
        signers,
      }),
      201,
      'create',
    );
    await this.running.jobs.runDue();
    const ids = created.body.signers as { id: string; signing_url: string }[];
    return {
      id: created.body.id as string,
      format: created.body.format as string,
      signers: ids.map((s, i) => ({ id: s.id, email: signers[i]!.email, url: s.signing_url })),
    };
  }

  /** Phase sign, for signer `i`: as a browser on the signing page would, the code read from the email. */
  async sign(request: Created, i: number): Promise<void> {
    const signer = request.signers[i]!;
    const html = await (await fetch(signer.url)).text();
    const token = /<meta name="tawqi-page-token" content="([^"]+)">/.exec(html)?.[1];
    if (!token) throw new Error(`signing page of ${signer.id}: no page token`);
    const page = async (p: string, body?: unknown): Promise<Answer> => {
      const headers: Record<string, string> = { 'x-tawqi-page-token': token };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${this.running.url}/sign/api${p}`, {
        method: 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    expect(await page('/view'), 200, 'view');
    expect(await page('/otp/send'), 200, 'otp/send');
    await this.running.jobs.runDue();
    expect(await page('/otp/verify', { code: this.codeSentTo(signer.email) }), 200, 'otp/verify');
    expect(await page('/sign', { signature: SIGNATURES[i], consent: true }), 200, 'sign');
    if (i < request.signers.length - 1) await this.running.jobs.runDue();
  }

  private codeSentTo(email: string): string {
    const mail = this.smtp.mails.findLast((m) => m.envelopeTo.includes(email) && /\b\d{6}\b/.test(m.text ?? ''));
    const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
    if (!code) throw new Error(`no one-time code was emailed to ${email}`);
    return code;
  }

  /** Phase seal: what the completing signature left (the seal job, the completion emails). */
  async seal(): Promise<void> {
    await this.running.jobs.runDue();
  }

  /** Phase deliver: every webhook delivery due, sent and answered; returns how many attempts were made. */
  deliver(): Promise<number> {
    return this.running.webhooks.runDue();
  }

  /**
   * Outside the measured phases: the request was sealed and every one of its events was delivered
   * (a failed lifecycle is not a measurement).
   */
  async check(request: Created): Promise<void> {
    const download = expect(await this.api('GET', `/signature_requests/${request.id}/download`), 200, 'download');
    if (download.body.pdf_status !== 'ready') throw new Error(`${request.id}: pdf_status ${download.body.pdf_status} after the seal`);
    const delivered = this.receiver.received.filter((r) => r.rawBody.includes(request.id));
    if (!delivered.some((r) => (JSON.parse(r.rawBody) as { type: string }).type === 'signature_request.completed'))
      throw new Error(`${request.id}: its completion event was not delivered`);
  }
}

function expect(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer;
}
