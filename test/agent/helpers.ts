/**
 * Helpers for the agent tests: a tiny "server" origin (Ed25519 ticket key at /pki/evidence-key.pem,
 * a page-1 preview behind the ticket), ticket minting, a WebSocket page client, openssl verification.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentResponseSchema, encodeSignTicketPayload, joinSignTicket, type AgentResponse, type SignTicketPayload } from '@tawqi/shared';
import { ecdsaRawToDer, padesSignedAttributes, sha256SignatureAlgorithm, signedData } from '@tawqi/shared/cms';
import WebSocket from 'ws';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The CLI shell (`tawqi-agent <args>`) run from source as a child process. `env` is added to this
 * process's environment (give it the SoftHSM's env and TAWQI_AGENT_HOME); undefined removes a variable.
 */
export function spawnAgentCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--conditions=tawqi-source', '--import', 'tsx', path.join(ROOT, 'agent/src/cli/main.ts'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * How long an agent child may take to start listening, or a one-shot command to finish, before the
 * test fails with its output (far above the seconds either takes; without it a hung child would
 * hold the file until the runner's 20-minute limit).
 */
export const AGENT_CHILD_DEADLINE_MS = 120_000;

/**
 * The port a `tawqi-agent serve` child listens on, from its first line on stdout; rejects when it
 * exits first, or kills it and rejects when it has not listened within `timeoutMs`.
 */
export function listeningPort(child: ChildProcess, timeoutMs = AGENT_CHILD_DEADLINE_MS): Promise<number> {
  let stdout = '';
  let stderr = '';
  return new Promise<number>((resolve, reject) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not listen within ${timeoutMs} ms: ${stdout}${stderr}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (m) {
        clearTimeout(deadline);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(deadline);
      reject(new Error(`serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
}

/** A 1×1 PNG. */
export const PREVIEW_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export interface FakeServer {
  origin: string;
  privateKey: KeyObject;
  publicKeyPem: string;
  fingerprint: string;
  /** Authorization headers the preview endpoint received. */
  previewAuth: string[];
  mint(overrides?: Partial<SignTicketPayload>, key?: KeyObject): string;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const fingerprint = createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
  const previewAuth: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url === '/pki/evidence-key.pem') {
      res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(publicKeyPem);
    } else if (req.url?.startsWith('/preview/')) {
      previewAuth.push(req.headers.authorization ?? '');
      if (!req.headers.authorization?.startsWith('Bearer ')) res.writeHead(401).end();
      else res.writeHead(200, { 'content-type': 'image/png' }).end(PREVIEW_PNG);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    origin,
    privateKey,
    publicKeyPem,
    fingerprint,
    previewAuth,
    mint(overrides = {}, key = privateKey) {
      const now = Math.floor(Date.now() / 1000);
      const payload: SignTicketPayload = {
        v: 1,
        typ: 'tawqi-sign-ticket',
        iss: origin,
        request_id: 'sr_test',
        signer_id: 'sgr_test',
        title: 'Test contract',
        pages: 2,
        digest_alg: 'sha-256',
        digest: createHash('sha256').update('content').digest('hex'),
        cert_sha256: '0'.repeat(64),
        preview_url: `${origin}/preview/sr_test.png`,
        iat: now,
        exp: now + 300,
        jti: randomBytes(16).toString('hex'),
        ...overrides,
      };
      const signedPart = encodeSignTicketPayload(payload);
      return joinSignTicket(signedPart, sign(null, Buffer.from(signedPart, 'ascii'), key));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A page's WebSocket to the agent, with a queue of parsed answers. */
export class PageClient {
  private readonly queue: AgentResponse[] = [];
  private readonly waiters: { match: (m: AgentResponse) => boolean; resolve: (m: AgentResponse) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private counter = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = AgentResponseSchema.parse(JSON.parse(data.toString()));
      const i = this.waiters.findIndex((w) => w.match(message));
      if (i >= 0) this.waiters.splice(i, 1)[0]?.resolve(message);
      else this.queue.push(message);
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(port: number, origin: string | null, host = `127.0.0.1:${port}`): Promise<PageClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers: { ...(origin ? { origin } : {}), host } });
    const client = new PageClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  send(message: Record<string, unknown>): string {
    const id = typeof message.id === 'string' ? message.id : `m${++this.counter}`;
    this.ws.send(JSON.stringify({ id, ...message }));
    return id;
  }

  next(match: (m: AgentResponse) => boolean = () => true, timeoutMs = 15_000): Promise<AgentResponse> {
    const i = this.queue.findIndex(match);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0] as AgentResponse);
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve: (m: AgentResponse) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no matching message within ${timeoutMs} ms; queued: ${JSON.stringify(this.queue.map((m) => m.type))}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The final answer (signature, certificates, hello or error) to request `id`. */
  answer(id: string, timeoutMs?: number): Promise<AgentResponse> {
    return this.next((m) => 'id' in m && m.id === id && m.type !== 'sign-status', timeoutMs);
  }

  async hello(): Promise<AgentResponse> {
    return this.answer(this.send({ type: 'hello', versions: [1] }));
  }

  close(): void {
    this.ws.close();
  }
}

/** `openssl cms -verify` of a detached CMS over `content`; returns openssl's verdict. */
export function opensslVerify(cmsDer: Uint8Array, content: Buffer, caFile: string): { ok: boolean; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-cms-'));
  try {
    writeFileSync(path.join(dir, 'sig.der'), cmsDer);
    writeFileSync(path.join(dir, 'data.bin'), content);
    const output = execFileSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        'sig.der',
        '-content',
        'data.bin',
        '-CAfile',
        caFile,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return { ok: true, output };
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    return { ok: false, output: e.stderr ?? e.message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl cms -cmsout -print` of a CMS (structure dump). */
export function opensslPrint(cmsDer: Uint8Array): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-cms-'));
  try {
    writeFileSync(path.join(dir, 'sig.der'), cmsDer);
    return execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', 'sig.der'], { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The signed attributes the agent has its token sign (AgentServer's sign, agent/src/core/server.ts). */
export function buildSignedAttributes(certificate: Uint8Array, digest: Uint8Array): Uint8Array {
  return padesSignedAttributes(certificate, createHash('sha256').update(certificate).digest(), digest);
}

/** The detached CMS the agent returns around the token's signature (raw r‖s for ECDSA), as AgentServer builds it. */
export function assembleSignedData(input: {
  certificate: Uint8Array;
  chain: readonly Uint8Array[];
  signedAttributes: Uint8Array;
  keyType: 'rsa' | 'ec';
  signature: Uint8Array;
}): Uint8Array {
  return signedData({
    signerCertificate: input.certificate,
    certificates: [input.certificate, ...input.chain],
    signedAttributes: input.signedAttributes,
    signatureAlgorithm: sha256SignatureAlgorithm(input.keyType),
    signature: input.keyType === 'ec' ? ecdsaRawToDer(input.signature) : input.signature,
  });
}
