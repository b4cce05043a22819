/**
 * A mixed workload on a live test server, for backups taken while it runs: workers loop creating
 * requests with an Idempotency-Key; of every four, one is canceled, one stays sent and two are
 * signed through, sealed and their events delivered. Sealing paces the loop (a cycle takes a
 * seal's time), so it keeps writing for as long as a backup takes without piling up rows. Each
 * acknowledged create (a 201) is recorded with the phase it was acknowledged in, so a check can
 * tell what a backup started after must hold.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server.js';
import { signAll } from './signing.js';

export type Phase = 'before' | 'during' | 'after';

export interface Acknowledged {
  id: string;
  idempotencyKey: string;
  body: Record<string, unknown>;
  signers: number;
  phase: Phase;
}

export interface LoadOptions {
  key: string;
  templateId: string;
  /** Concurrent loops (default 2). */
  workers?: number;
  /** A bound on creates, whatever the backup's duration. */
  maxCreates: number;
}

const ORIGIN = { ip: '198.51.100.7', user_agent: 'BackupLoad/1.0' };
const SIGNERS = [
  { name: 'Ali Hassan', email: 'owner@example.com' },
  { name: 'Mona Said', email: 'owner@example.com' },
];

export class BackupLoad {
  /** Set by the test: the phase a create acknowledged from now on belongs to. */
  phase: Phase = 'before';
  readonly acknowledged: Acknowledged[] = [];
  readonly completed = new Set<string>();
  readonly canceled = new Set<string>();
  private stopped = false;
  private loops: Promise<void>[] = [];
  private waiters: { ready: () => boolean; resolve: () => void }[] = [];

  constructor(
    private readonly s: TestServer,
    private readonly options: LoadOptions,
  ) {}

  start(): void {
    this.loops = Array.from({ length: this.options.workers ?? 2 }, () => this.loop());
    // A loop's failure surfaces through reach() and stop(), not as an unhandled rejection meanwhile.
    for (const l of this.loops) l.catch(() => undefined);
  }

  /** Resolves once `creates` creates are acknowledged and `completions` requests sealed. */
  reach(creates: number, completions: number): Promise<void> {
    const ready = () => this.acknowledged.length >= creates && this.completed.size >= completions;
    if (ready()) return Promise.resolve();
    return Promise.race([new Promise<void>((resolve) => this.waiters.push({ ready, resolve })), ...this.loops]);
  }

  /** Stop after the operations in flight; rethrows a loop's failure. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private settleWaiters(): void {
    this.waiters = this.waiters.filter((w) => (w.ready() ? (w.resolve(), false) : true));
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.acknowledged.length < this.options.maxCreates) {
      const made = await this.create();
      const n = this.acknowledged.length;
      if (n % 4 === 0) await this.cancel(made.id);
      else if (n % 4 !== 1) await this.complete(made.id, made.signerIds);
      this.settleWaiters();
    }
  }

  private async create(): Promise<{ id: string; signerIds: string[] }> {
    const idempotencyKey = randomUUID();
    const signers = SIGNERS.slice(0, 1 + (this.acknowledged.length % 2));
    const body = { title: 'Backed up', source: { type: 'template', template_id: this.options.templateId }, signers };
    const created = await this.s.call('POST', '/signature_requests', {
      key: this.options.key,
      body,
      headers: { 'idempotency-key': idempotencyKey },
    });
    assert.equal(created.status, 201, created.text);
    const phase = this.phase;
    this.acknowledged.push({ id: created.body.id, idempotencyKey, body, signers: signers.length, phase });
    return { id: created.body.id, signerIds: created.body.signers.map((x: { id: string }) => x.id) };
  }

  private async cancel(id: string): Promise<void> {
    const res = await this.s.call('POST', `/signature_requests/${id}/cancel`, { key: this.options.key });
    assert.equal(res.status, 200, res.text);
    this.canceled.add(id);
  }

  /** Signed through as the signing page would, sealed by the seal job, the events delivered. */
  private async complete(id: string, signerIds: string[]): Promise<void> {
    await signAll(this.s, signerIds, ORIGIN);
    await this.s.jobs.runDue();
    await this.s.webhooks.runDue();
    this.completed.add(id);
  }
}
