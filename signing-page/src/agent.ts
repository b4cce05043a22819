/**
 * The page's client for the desktop signing agent (protocol: shared/src/agentProtocol.ts): a
 * WebSocket to ws://127.0.0.1:<port>, trying the protocol's ports in order (the server sends them in
 * `State.token.agent_ports`, and its CSP allows exactly those). After `hello` the page asks for the
 * certificates and sends `sign` with the server's ticket; the answer is the detached CMS.
 *
 * Only the protocol's types are imported (erased at build time): the page ships no schema library,
 * so incoming messages get a light shape check here; the agent validates what it receives.
 */
import type {
  AgentErrorCode,
  AgentResponse,
  CertificateInfo,
  CertificatesResponse,
  HelloResponse,
  PinState,
  SignatureResponse,
  SignStatus,
  TokenInfo,
} from '@tawqi/shared';

export type { CertificateInfo, PinState, TokenInfo };

/** Why an agent call failed: the agent's own codes, or what the page saw on the wire. */
export type AgentFailure = AgentErrorCode | 'unavailable' | 'disconnected' | 'timeout' | 'protocol';

export class AgentError extends Error {
  constructor(
    readonly code: AgentFailure,
    message: string,
    /** With pin_incorrect / pin_locked: the token's PIN state after the attempt. */
    readonly pin: PinState | null = null,
  ) {
    super(message);
    this.name = 'AgentError';
  }
}

/** Close codes of the agent (AGENT_CLOSE_CODES in the protocol). */
const CLOSE_ORIGIN_NOT_TRUSTED = 4403;
const CLOSE_UNSUPPORTED_VERSION = 4426;
const CONNECT_TIMEOUT_MS = 2500;
const REQUEST_TIMEOUT_MS = 20_000;
/** A sign request waits for the person (consent, PIN): as long as a ticket lives, and a little more. */
const SIGN_TIMEOUT_MS = 330_000;

interface Pending {
  resolve: (message: AgentResponse) => void;
  reject: (error: AgentError) => void;
  onStatus?: (status: SignStatus['status']) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Open a socket, or fail quickly (nothing listening, refused, or a silent port). */
function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch (err) {
      reject(new AgentError('unavailable', String(err)));
      return;
    }
    const timer = setTimeout(() => {
      ws.close();
      reject(new AgentError('unavailable', `no answer on ${url}`));
    }, CONNECT_TIMEOUT_MS);
    ws.addEventListener('open', () => {
      clearTimeout(timer);
      resolve(ws);
    });
    ws.addEventListener('close', () => {
      clearTimeout(timer);
      reject(new AgentError('unavailable', `nothing listens on ${url}`));
    });
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class AgentClient {
  /** The agent's answer to hello (version, name, the origin it trusts). */
  hello: HelloResponse | null = null;
  /** Told when the plugged-in tokens change (the page lists the certificates again). */
  onTokensChanged: ((tokens: TokenInfo[]) => void) | null = null;
  /** Told once when the connection ends (the agent quit, or refused this page). */
  onClose: ((error: AgentError) => void) | null = null;

  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private closed: AgentError | null = null;
  /** An error the agent sent without an id (e.g. origin_not_trusted right before it closes). */
  private lastUnsolicited: AgentError | null = null;

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (event) => this.receive(event.data));
    ws.addEventListener('close', (event) => this.ended(event.code));
  }

  /**
   * Find the agent on the first of `ports` that answers and say hello. Throws AgentError
   * 'unavailable' when none answers, or the agent's refusal (origin_not_trusted, unsupported_version).
   */
  static async connect(ports: readonly number[], versions: readonly number[]): Promise<AgentClient> {
    for (const port of ports) {
      let ws: WebSocket;
      try {
        ws = await open(`ws://127.0.0.1:${port}`);
      } catch {
        continue;
      }
      const client = new AgentClient(ws);
      try {
        const hello = await client.request({ type: 'hello', versions: [...versions], client: 'tawqi-signing-page' }, REQUEST_TIMEOUT_MS);
        if (hello.type !== 'hello') throw new AgentError('protocol', `unexpected ${hello.type} to hello`);
        client.hello = hello;
        return client;
      } catch (err) {
        client.close();
        const error = err instanceof AgentError ? err : new AgentError('protocol', String(err));
        // The agent answered but refused: that is the answer, not a reason to try another port.
        if (error.code === 'origin_not_trusted' || error.code === 'unsupported_version') throw error;
      }
    }
    throw new AgentError('unavailable', 'the signing agent is not running');
  }

  async listCertificates(): Promise<{ tokens: TokenInfo[]; certificates: CertificateInfo[] }> {
    const answer = await this.request({ type: 'list-certificates' }, REQUEST_TIMEOUT_MS);
    if (answer.type !== 'certificates') throw new AgentError('protocol', `unexpected ${answer.type} to list-certificates`);
    const list = answer as CertificatesResponse;
    return {
      tokens: Array.isArray(list.tokens) ? list.tokens : [],
      certificates: Array.isArray(list.certificates) ? list.certificates : [],
    };
  }

  /**
   * Ask the agent to sign the ticket with the certificate. `onStatus` follows the person's progress
   * in the agent (consent, PIN, signing); `onStarted` receives the request id (for `cancel`).
   */
  async sign(
    ticket: string,
    certSha256: string,
    onStatus: (status: SignStatus['status']) => void,
    onStarted?: (id: string) => void,
  ): Promise<SignatureResponse> {
    const answer = await this.request({ type: 'sign', ticket, cert_sha256: certSha256 }, SIGN_TIMEOUT_MS, onStatus, onStarted);
    if (answer.type !== 'signature') throw new AgentError('protocol', `unexpected ${answer.type} to sign`);
    const signature = answer as SignatureResponse;
    if (typeof signature.cms !== 'string' || signature.cms === '') throw new AgentError('protocol', 'the signature carries no CMS');
    return signature;
  }

  /** Withdraw a pending sign request (the agent answers it with error `canceled`). */
  cancel(target: string): void {
    this.send({ type: 'cancel', id: this.nextId(), target });
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }

  private nextId(): string {
    this.seq += 1;
    return `p${this.seq}`;
  }

  private send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  private request(
    message: Record<string, unknown>,
    timeoutMs: number,
    onStatus?: (status: SignStatus['status']) => void,
    onStarted?: (id: string) => void,
  ): Promise<AgentResponse> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AgentError('timeout', `no answer to ${String(message.type)}`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, ...(onStatus ? { onStatus } : {}), timer });
      this.send({ ...message, id });
      onStarted?.(id);
    });
  }

  private receive(data: unknown): void {
    let message: unknown;
    try {
      message = typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      message = null;
    }
    if (!isRecord(message) || typeof message.type !== 'string') return;
    if (message.type === 'tokens-changed') {
      if (Array.isArray(message.tokens)) this.onTokensChanged?.(message.tokens as TokenInfo[]);
      return;
    }
    const id = typeof message.id === 'string' ? message.id : null;
    if (message.type === 'error') {
      const error = new AgentError(
        (typeof message.code === 'string' ? message.code : 'protocol') as AgentFailure,
        typeof message.message === 'string' ? message.message : 'agent error',
        isRecord(message.pin) ? (message.pin as unknown as PinState) : null,
      );
      if (id === null) {
        this.lastUnsolicited = error;
        return;
      }
      this.settle(id, (p) => p.reject(error));
      return;
    }
    if (id === null) return;
    if (message.type === 'sign-status') {
      const p = this.pending.get(id);
      const status = message.status;
      if (p && (status === 'awaiting_consent' || status === 'awaiting_pin' || status === 'signing')) p.onStatus?.(status);
      return;
    }
    this.settle(id, (p) => p.resolve(message as unknown as AgentResponse));
  }

  private settle(id: string, how: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    how(p);
  }

  private ended(code: number): void {
    const error =
      code === CLOSE_ORIGIN_NOT_TRUSTED
        ? new AgentError('origin_not_trusted', this.lastUnsolicited?.message ?? 'this server is not trusted by the agent')
        : code === CLOSE_UNSUPPORTED_VERSION
          ? new AgentError('unsupported_version', this.lastUnsolicited?.message ?? 'no shared protocol version')
          : (this.lastUnsolicited ?? new AgentError('disconnected', 'the signing agent closed the connection'));
    const first = this.closed === null;
    this.closed = error;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(error);
    }
    if (first) this.onClose?.(error);
  }
}
