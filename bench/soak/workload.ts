/**
 * The soak's steady mixed load: lifecycles started at a fixed rate (at most `concurrency` at a
 * time; a start that finds them all busy is counted as skipped, so an overloaded server shows as
 * skips, not as an ever-growing backlog in the driver). Each lifecycle, over HTTP as an integrator
 * and signers would:
 *
 * - create (live key, two signers, an Idempotency-Key), and every fifth one sent again with the
 *   same key, which must answer the same request;
 * - read it, list the account's requests, read a page of events;
 * - one in four: cancel it;
 * - the others: each signer opens the signing link, views, asks for the one-time code (read from
 *   the SMTP peer), verifies it and signs; the server then seals in the background, which the
 *   seal watcher sees through GET …/download. Webhook deliveries of every event reach the receiver.
 */
import { randomUUID } from 'node:crypto';
import { dataUrl, FIELD_VALUES, signaturePng } from '../seal/workload.js';
import type { Installation } from './installation.js';
import type { Recorder } from './recorder.js';

const SIGNATURES = [dataUrl(signaturePng(1)), dataUrl(signaturePng(2))];
const CANCEL_EVERY = 4;
const REPLAY_EVERY = 5;
/** How long a signer waits for its one-time code email before the lifecycle counts as failed. */
const CODE_WAIT_MS = 60_000;
const SEAL_WATCH_MS = 2_000;

/** A step answered with another status than expected, already recorded as an error. */
class StepFailed extends Error {}

interface CallOptions {
  key?: string;
  pageToken?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface LoadOptions {
  /** Lifecycles started per second. */
  rate: number;
  /** Lifecycles running at once, at most. */
  concurrency: number;
}

export class SoakLoad {
  private n = 0;
  private running = new Set<Promise<void>>();
  private timers: NodeJS.Timeout[] = [];
  /** Completed requests not yet seen sealed: id → when the last signature was answered. */
  private readonly awaitingSeal = new Map<string, number>();
  /** The newest one-time code emailed to each address. */
  private readonly codes = new Map<string, string>();
  private watching = false;

  constructor(
    private readonly inst: Installation,
    private readonly rec: Recorder,
    private readonly opts: LoadOptions,
  ) {}

  get awaitingSealCount(): number {
    return this.awaitingSeal.size;
  }

  start(): void {
    this.timers.push(setInterval(() => this.tick(), 1000 / this.opts.rate));
    this.timers.push(setInterval(() => void this.watchSeals(), SEAL_WATCH_MS));
  }

  /** Stop starting lifecycles and let the running ones finish. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all([...this.running]);
  }

  /** After stop(): watch until every completed request is sealed or `boundMs` passes; how many were left unsealed. */
  async drainSeals(boundMs: number): Promise<number> {
    const deadline = Date.now() + boundMs;
    while (this.awaitingSeal.size > 0 && Date.now() < deadline) {
      await this.watchSeals();
      if (this.awaitingSeal.size > 0) await new Promise((r) => setTimeout(r, SEAL_WATCH_MS));
    }
    return this.awaitingSeal.size;
  }

  /** Webhook deliveries received since the last call (the receiver's list is emptied, so it does not grow over a long run). */
  takeWebhooks(): number {
    return this.inst.receiver.received.splice(0).length;
  }

  private tick(): void {
    if (this.running.size >= this.opts.concurrency) {
      this.rec.count('skipped');
      return;
    }
    this.rec.count('lifecycles_started');
    const p = this.lifecycle(++this.n).catch((err: unknown) => {
      if (!(err instanceof StepFailed)) this.rec.error(`lifecycle: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  private async lifecycle(n: number): Promise<void> {
    const key = this.inst.key;
    const signers = [0, 1].map((i) => ({
      name: i === 0 ? 'Amira Hassan' : 'Omar Farouk',
      email: `signer${i}.r${n}.${randomUUID().slice(0, 8)}@soak.example`,
      fields: i === 0 ? FIELD_VALUES : {},
    }));
    const body = { title: `Soak agreement ${n}`, source: { type: 'template', template_id: this.inst.templateId }, signers };
    const idempotency = { 'idempotency-key': randomUUID() };
    const created = await this.call('create', 'POST', '/api/v1/signature_requests', 201, { key, body, headers: idempotency });
    this.rec.count('created');
    if (n % REPLAY_EVERY === 0) {
      const again = await this.call('create again', 'POST', '/api/v1/signature_requests', 201, { key, body, headers: idempotency });
      if (again.id !== created.id) this.fail(`idempotent create answered ${again.id}, not ${created.id}`);
      this.rec.count('idempotent_replays');
    }
    const id = created.id as string;
    await this.call('read', 'GET', `/api/v1/signature_requests/${id}`, 200, { key });
    await this.call('list', 'GET', '/api/v1/signature_requests?limit=20', 200, { key });
    await this.call('events', 'GET', '/api/v1/events?limit=20', 200, { key });
    if (n % CANCEL_EVERY === 0) {
      await this.call('cancel', 'POST', `/api/v1/signature_requests/${id}/cancel`, 200, { key });
      this.rec.count('cancelled');
      return;
    }
    const links = created.signers as { signing_url: string }[];
    for (let i = 0; i < links.length; i++) await this.sign(links[i]!.signing_url, signers[i]!.email, SIGNATURES[i]!);
    this.rec.count('signed');
    this.awaitingSeal.set(id, Date.now());
  }

  /** One signer through the signing page's API, as its browser code does. */
  private async sign(url: string, email: string, signature: string): Promise<void> {
    const html = (await this.call('signing page', 'GET', new URL(url).pathname + new URL(url).search, 200, {})) as string;
    const pageToken = /<meta name="tawqi-page-token" content="([^"]+)">/.exec(html)?.[1];
    if (!pageToken) this.fail('signing page: no page token');
    await this.call('view', 'POST', '/sign/api/view', 200, { pageToken });
    this.codes.delete(email);
    await this.call('otp/send', 'POST', '/sign/api/otp/send', 200, { pageToken });
    const code = await this.codeFor(email);
    await this.call('otp/verify', 'POST', '/sign/api/otp/verify', 200, { pageToken, body: { code } });
    await this.call('sign', 'POST', '/sign/api/sign', 200, { pageToken, body: { signature, consent: true } });
  }

  private async codeFor(email: string): Promise<string> {
    const deadline = Date.now() + CODE_WAIT_MS;
    for (;;) {
      for (const mail of this.inst.smtp.mails.splice(0)) {
        const code = /verification code:\s*(\d{4,10})/.exec(mail.text ?? '')?.[1];
        if (code) for (const to of mail.envelopeTo) this.codes.set(to, code);
      }
      const code = this.codes.get(email);
      if (code) {
        this.codes.delete(email);
        return code;
      }
      if (Date.now() > deadline) this.fail(`no one-time code emailed to ${email} within ${CODE_WAIT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** GET …/download of each completed request not yet seen sealed (one watcher at a time). */
  private async watchSeals(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    try {
      for (const id of [...this.awaitingSeal.keys()]) {
        const d = await this.call('download', 'GET', `/api/v1/signature_requests/${id}/download`, 200, { key: this.inst.key }).catch(
          () => null,
        );
        if (d?.pdf_status === 'ready') {
          this.awaitingSeal.delete(id);
          this.rec.count('sealed');
        } else if (d?.pdf_status === 'failed') {
          this.awaitingSeal.delete(id);
          this.rec.error(`${id}: pdf_status failed`);
        }
      }
    } finally {
      this.watching = false;
    }
  }

  private fail(what: string): never {
    this.rec.error(what);
    throw new StepFailed(what);
  }

  /** One request, timed and recorded; its parsed JSON body (or text), or StepFailed on another status. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private async call(step: string, method: string, p: string, expected: number, o: CallOptions): Promise<any> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.pageToken) headers['x-tawqi-page-token'] = o.pageToken;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.inst.server.base}${p}`, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
      text = await res.text();
      status = res.status;
    } catch (err) {
      this.rec.request(performance.now() - started);
      this.fail(`${step}: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.rec.request(performance.now() - started);
    if (status !== expected) this.fail(`${step}: ${status} ${text.slice(0, 300)}`);
    return text.startsWith('{') ? JSON.parse(text) : text;
  }
}
