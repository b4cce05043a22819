/**
 * The main thread's handle on the tokens: starts the token worker, asks it for scans and signatures,
 * and polls for tokens plugged in or removed (emitting 'tokens-changed').
 */
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { TokenInfo } from '@tawqi/shared';
import { analyzeCertificates, tokenInfo, type CertificateEntry } from '../certificates.js';
import type { ModuleStatus, ScanResult, SignJob, SignOutcome } from './backend.js';
import type { ModuleSpec } from './modules.js';
import type { WorkerCall, WorkerReply, WorkerRequest, WorkerResults } from './rpc.js';

export interface TokenServiceOptions {
  modules: ModuleSpec[];
  /** How often to look for tokens plugged in or removed; 0 turns polling off. Default 1500 ms. */
  pollIntervalMs?: number;
}

export interface TokenServiceEvents {
  'tokens-changed': [TokenInfo[]];
}

/**
 * The worker next to this file: worker.js when built. From source (tests, `--import tsx`) the worker
 * is worker.ts and tsx's loader does not follow into worker threads by itself, so a two-line
 * bootstrap registers it first.
 */
function createWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url));
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, {
    eval: true,
  });
}

export class TokenService extends EventEmitter<TokenServiceEvents> {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private timer: NodeJS.Timeout | null = null;
  private lastSignature: string | null = null;
  private lastTokens: TokenInfo[] = [];
  private polling = false;
  private closed = false;
  private moduleStatus: ModuleStatus[] = [];

  private constructor() {
    super();
    this.worker = createWorker();
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(reply.error));
    });
    const failAll = (error: Error): void => {
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', () => failAll(new Error('the token worker stopped')));
  }

  static async start(options: TokenServiceOptions): Promise<TokenService> {
    const service = new TokenService();
    service.moduleStatus = await service.call({ op: 'init', modules: options.modules });
    const first = await service.call({ op: 'scan', objects: false });
    service.remember(first);
    const interval = options.pollIntervalMs ?? 1500;
    if (interval > 0) {
      service.timer = setInterval(() => void service.poll(), interval);
      service.timer.unref();
    }
    return service;
  }

  private call<K extends WorkerCall['op']>(call: Extract<WorkerCall, { op: K }>, transfer: ArrayBuffer[] = []): Promise<WorkerResults[K]> {
    if (this.closed && call.op !== 'close') return Promise.reject(new Error('the token service is closed'));
    const id = this.nextId++;
    return new Promise<WorkerResults[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.size === 1) this.worker.ref();
      const request: WorkerRequest = { ...call, id };
      this.worker.postMessage(request, transfer);
    }).finally(() => {
      if (this.pending.size === 0) this.worker.unref();
    });
  }

  /** Modules loaded (or failed) at start. */
  modules(): ModuleStatus[] {
    return this.moduleStatus;
  }

  /** Tokens as of the last scan or poll. */
  tokens(): TokenInfo[] {
    return this.lastTokens;
  }

  private remember(scan: ScanResult): boolean {
    this.moduleStatus = scan.modules;
    const tokens = scan.tokens.map(tokenInfo);
    const signature = JSON.stringify(tokens.map((t) => [t.slot, t.serial, t.label, t.pin]));
    const changed = this.lastSignature !== null && signature !== this.lastSignature;
    this.lastSignature = signature;
    this.lastTokens = tokens;
    if (changed) this.emit('tokens-changed', tokens);
    return changed;
  }

  /** One poll; skipped while the worker is busy (a sign waiting for a PIN pad, a scan). */
  async poll(): Promise<void> {
    if (this.polling || this.closed || this.pending.size > 0) return;
    this.polling = true;
    try {
      this.remember(await this.call({ op: 'scan', objects: false }));
    } catch {
      // the next poll tries again
    } finally {
      this.polling = false;
    }
  }

  /** A fresh scan with objects, every certificate analyzed against `now`. */
  async certificates(now: Date = new Date()): Promise<{ tokens: TokenInfo[]; entries: CertificateEntry[]; modules: ModuleStatus[] }> {
    const scan = await this.call({ op: 'scan', objects: true });
    this.remember(scan);
    return { tokens: scan.tokens.map(tokenInfo), entries: analyzeCertificates(scan, now), modules: scan.modules };
  }

  /** The token's flags now, or null when it is gone. */
  tokenFlags(slot: string): Promise<number | null> {
    return this.call({ op: 'flags', slot });
  }

  /**
   * Signs on the token. The PIN buffer is moved to the worker (transferred, so this thread keeps no
   * copy) and wiped there after the login.
   */
  async sign(job: SignJob): Promise<SignOutcome> {
    const transfer: ArrayBuffer[] = [];
    let pin = job.pin;
    if (pin) {
      // A buffer of its own, transferred: the caller's bytes are wiped now.
      const own = new Uint8Array(pin.byteLength);
      own.set(pin);
      pin.fill(0);
      pin = own;
      transfer.push(own.buffer);
    }
    const outcome = await this.call({ op: 'sign', job: { ...job, pin } }, transfer);
    return outcome;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      await this.call({ op: 'close' });
    } catch {
      // the worker is gone already
    }
    this.closed = true;
    await this.worker.terminate();
  }
}
