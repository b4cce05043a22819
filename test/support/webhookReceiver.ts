/**
 * A real HTTPS webhook receiver on 127.0.0.1 for tests (and the benchmark's certificates): a
 * throwaway CA and a localhost certificate made with `openssl` in a temp dir, programmable answers
 * (status, delay, hang), and a record of every raw body and its headers.
 *
 * In-process servers trust the CA through StartOptions.webhookCa (`startWebhookTestServer`); a server
 * run as a child process trusts it through NODE_EXTRA_CA_CERTS=<ca.caFile>, as production would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ManualClock } from '../../server/src/clock.js';
import { startTestServer, type TestServer } from './server.js';

export interface TestCa {
  dir: string;
  /** The CA certificate file, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  caPem: string;
  /** A certificate for localhost, 127.0.0.1 and ::1 signed by the CA, and its key. */
  certPem: string;
  keyPem: string;
  cleanup(): void;
}

/** Make a CA and a server certificate with openssl (P-256, valid two days). */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-webhook-ca-'));
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Tawqi Test Webhook CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', f('leaf.key'), '-out', f('leaf.csr'), '-subj', '/CN=localhost');
  writeFileSync(
    f('leaf.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    f('leaf.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('leaf.pem'),
    '-days',
    '2',
    '-extfile',
    f('leaf.ext'),
  );
  return {
    dir,
    caFile: f('ca.pem'),
    caPem: readFileSync(f('ca.pem'), 'utf8'),
    certPem: readFileSync(f('leaf.pem'), 'utf8'),
    keyPem: readFileSync(f('leaf.key'), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** How the receiver answers one delivery: a status after an optional delay or once `after` settles, or never (hang). */
export interface Answer {
  status?: number;
  delayMs?: number;
  /** Answer only once this settles (a test opens the gate). */
  after?: Promise<unknown>;
  hang?: boolean;
  /** The answer's body (default `ok`): bytes as given, so a test can answer invalid or cut UTF-8. */
  body?: string | Buffer;
}

export interface Received {
  /** Exactly the bytes of the body, as UTF-8 text. */
  rawBody: string;
  headers: IncomingHttpHeaders;
  path: string;
  /** Wall-clock ms when the whole body had arrived. */
  receivedAtMs: number;
  /** The status the receiver answered (undefined while it hangs or delays). */
  answered?: number;
  /** Wall-clock ms of the answer. */
  answeredAtMs?: number;
  /**
   * How many bytes of the answer's body the socket took, once the body was all written or the
   * connection closed. The body goes out in 64 KiB writes, each after the previous one drained, so
   * a sender that stops reading stops the writes once the kernel's buffers are full.
   */
  bodyWritten?: Promise<number>;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Decides each answer; `n` counts deliveries from 0. Default: 200 at once. */
  answer: (n: number, r: Received) => Answer = () => ({ status: 200 });
  private readonly hanging = new Set<ServerResponse>();
  private waiters: { n: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: https.Server,
    readonly port: number,
  ) {}

  static async start(ca: Pick<TestCa, 'certPem' | 'keyPem'>): Promise<WebhookReceiver> {
    const server = https.createServer({ cert: ca.certPem, key: ca.keyPem, minVersion: 'TLSv1.2' });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => receiver.handle(req.headers, req.url ?? '/', Buffer.concat(chunks), res));
    });
    return receiver;
  }

  /** The endpoint URL: `localhost` by default, so the server's checked lookup is exercised. */
  url(p = '/hook', host = 'localhost'): string {
    return `https://${host}:${this.port}${p}`;
  }

  private handle(headers: IncomingHttpHeaders, p: string, body: Buffer, res: ServerResponse): void {
    const r: Received = { rawBody: body.toString('utf8'), headers, path: p, receivedAtMs: Date.now() };
    const n = this.received.length;
    this.received.push(r);
    this.waiters = this.waiters.filter((w) => (this.received.length >= w.n ? (w.resolve(), false) : true));
    const a = this.answer(n, r);
    if (a.hang) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const send = () => {
      r.answered = a.status ?? 200;
      r.answeredAtMs = Date.now();
      res.writeHead(r.answered, { 'content-type': 'text/plain; charset=utf-8' });
      r.bodyWritten = writeSlowly(res, Buffer.from(a.body ?? 'ok'));
    };
    if (a.after) {
      this.hanging.add(res);
      void a.after.finally(() => {
        this.hanging.delete(res);
        if (!res.destroyed) send();
      });
    } else if (a.delayMs) setTimeout(send, a.delayMs);
    else send();
  }

  /** Resolve once `n` deliveries have arrived in all (fails after `timeoutMs` of real time). */
  waitFor(n: number, timeoutMs = 10_000): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver got ${this.received.length} of ${n} deliveries within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** The event ids of the deliveries received (parsed from the bodies). */
  eventIds(filter: (r: Received) => boolean = () => true): string[] {
    return this.received.filter(filter).map((r) => (JSON.parse(r.rawBody) as { id: string }).id);
  }

  get hangingCount(): number {
    return this.hanging.size;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const WRITE_CHUNK = 64 * 1024;

/** Write `body` chunk by chunk, each after the last drained; resolves with the bytes the socket took. */
function writeSlowly(res: ServerResponse, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let taken = 0;
    let offset = 0;
    const done = () => resolve(taken);
    res.on('close', done);
    const next = () => {
      while (offset < body.length && !res.destroyed) {
        const chunk = body.subarray(offset, offset + WRITE_CHUNK);
        offset += chunk.length;
        const more = res.write(chunk, (err) => {
          if (!err) taken += chunk.length;
        });
        if (!more) {
          res.once('drain', next);
          return;
        }
      }
      if (!res.destroyed) res.end(done);
    };
    next();
  });
}

/**
 * startTestServer's twin for webhook tests: the same real server, ManualClock and manual jobs, plus
 * the test CA (StartOptions.webhookCa) and TAWQI_WEBHOOK_ALLOW_PRIVATE=true so it may deliver to
 * 127.0.0.1. `env` adds or overrides settings.
 */
export function startWebhookTestServer(
  ca: TestCa | null,
  env: Record<string, string> = {},
  reuseDataDir?: string,
  clock?: ManualClock,
): Promise<TestServer> {
  return startTestServer(
    { TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
    { dataDir: reuseDataDir, start: { webhookCa: ca?.caPem }, clock },
  );
}
