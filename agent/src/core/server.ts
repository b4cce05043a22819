/**
 * The agent's WebSocket server on 127.0.0.1 (never another interface). The first free port of the
 * configured list is used (default 38611, then 38612–38614). Only pages whose Origin the user trusts
 * get an answer; every sign carries a server-signed ticket, checked before anything is shown, and
 * needs the user's consent and PIN in the agent's own UI.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import {
  AGENT_CLOSE_CODES,
  AGENT_ERRORS,
  AGENT_MAX_MESSAGE_BYTES,
  AGENT_PROTOCOL_VERSIONS,
  AgentRequestSchema,
  type AgentErrorCode,
  type AgentResponse,
  type PinState,
  type SignRequest,
  type SignTicketPayload,
} from '@tawqi/shared';
import { ecdsaRawToDer, padesSignedAttributes, sha256SignatureAlgorithm, signedData } from '@tawqi/shared/cms';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from './log.js';
import { pinStateFromFlags } from './pkcs11/flags.js';
import type { SignOutcome } from './pkcs11/backend.js';
import type { TokenService } from './pkcs11/tokens.js';
import { fetchPreview as defaultFetchPreview, type Preview } from './preview.js';
import { DEFAULT_SOCKET_LIMITS, guardConnections, Heartbeat, type AgentSocketLimits } from './socketLimits.js';
import { CLOCK_SKEW_S, JtiRegistry, publicKeyFromPem, verifyTicket } from './ticket.js';
import type { TrustedServer, TrustStore } from './trust.js';
import type { AgentUi } from './ui.js';

export const AGENT_NAME = 'tawqi-agent';

export interface AgentServerOptions {
  tokens: TokenService;
  trust: TrustStore;
  ui: AgentUi;
  ports: readonly number[];
  agentVersion: string;
  log: Logger;
  now?: () => Date;
  fetchPreview?: (url: string, ticket: string, issuer: string, signal?: AbortSignal) => Promise<Preview>;
  /** Where used ticket ids are kept across restarts (the data directory's used-tickets.json). */
  usedTicketsFile?: string;
  /** Connection cap, handshake deadline and heartbeat (socketLimits.ts); defaults for the rest. */
  limits?: Partial<AgentSocketLimits>;
}

class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message?: string,
    readonly pin?: PinState,
  ) {
    super(message ?? AGENT_ERRORS[code].en);
  }
}

interface Connection {
  ws: WebSocket;
  origin: string;
  version: number | null;
  signs: Map<string, AbortController>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

export class AgentServer {
  private wss: WebSocketServer | null = null;
  private http: Server | null = null;
  private heartbeat: Heartbeat | null = null;
  private readonly limits: AgentSocketLimits;
  private upgraded: (socket: IncomingMessage['socket']) => void = () => {};
  private readonly connections = new Set<Connection>();
  private readonly jtis: JtiRegistry;
  private busy = false;
  private readonly refusedOrigins = new Set<string>();
  private boundPort = 0;
  private readonly now: () => Date;
  private readonly fetchPreview: NonNullable<AgentServerOptions['fetchPreview']>;
  /** Parsed server keys, per trusted-server record (a reload of the trust file makes new records). */
  private readonly serverKeys = new WeakMap<TrustedServer, KeyObject>();
  private readonly onTokensChanged = (tokens: unknown): void => {
    for (const c of this.connections) if (c.version !== null) this.send(c, { type: 'tokens-changed', tokens } as AgentResponse);
  };

  constructor(private readonly options: AgentServerOptions) {
    this.now = options.now ?? (() => new Date());
    this.fetchPreview = options.fetchPreview ?? defaultFetchPreview;
    this.jtis = new JtiRegistry(options.usedTicketsFile);
    this.limits = { ...DEFAULT_SOCKET_LIMITS, ...options.limits };
  }

  get port(): number {
    return this.boundPort;
  }

  /** Binds 127.0.0.1 on the first free port of the list; throws when none is free. */
  async listen(): Promise<number> {
    let lastError: Error | null = null;
    for (const port of this.options.ports) {
      try {
        this.wss = await this.bind(port);
        const address = this.wss.address();
        this.boundPort = typeof address === 'object' && address ? address.port : port;
        this.options.tokens.on('tokens-changed', this.onTokensChanged);
        this.options.log.info('listening', { host: '127.0.0.1', port: this.boundPort });
        return this.boundPort;
      } catch (error) {
        lastError = error as Error;
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        this.options.log.warn('port in use, trying the next', { port });
      }
    }
    throw new Error(`no free port among ${this.options.ports.join(', ')}: ${lastError?.message ?? ''}`);
  }

  private bind(port: number): Promise<WebSocketServer> {
    return new Promise((resolve, reject) => {
      // What ws answers to a request that is not an upgrade, on a server of our own so that the
      // connections can be bounded (socketLimits.ts).
      const http = createServer((_req, res) => {
        const body = STATUS_CODES[426] ?? '';
        res.writeHead(426, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
      });
      const guard = guardConnections(http, this.limits, () => this.onDrop());
      const wss = new WebSocketServer({
        server: http,
        maxPayload: AGENT_MAX_MESSAGE_BYTES,
        // DNS rebinding: the page must have dialled the loopback address itself.
        verifyClient: (info: { req: IncomingMessage }) => {
          const host = (info.req.headers.host ?? '').replace(/:\d+$/, '');
          return LOOPBACK_HOSTS.has(host);
        },
      });
      const onError = (error: Error): void => {
        wss.close();
        http.close();
        reject(error);
      };
      wss.once('error', onError);
      wss.once('listening', () => {
        wss.off('error', onError);
        wss.on('error', (error) => this.options.log.error('server error', { error: error.message }));
        wss.on('connection', (ws, req) => this.accept(ws, req));
        this.http = http;
        this.upgraded = guard.upgraded;
        this.heartbeat = new Heartbeat(this.limits.heartbeatIntervalMs);
        resolve(wss);
      });
      http.listen(port, '127.0.0.1');
    });
  }

  private lastDropLog = 0;

  /** A connection beyond maxConnections was dropped: logged at most once a minute (a flood would flood the log). */
  private onDrop(): void {
    const now = this.now().getTime();
    if (now - this.lastDropLog < 60_000) return;
    this.lastDropLog = now;
    this.options.log.warn('connection dropped: too many connections', { max: this.limits.maxConnections });
  }

  async close(): Promise<void> {
    this.options.tokens.off('tokens-changed', this.onTokensChanged);
    for (const c of this.connections) {
      for (const controller of c.signs.values()) controller.abort();
      c.ws.terminate();
    }
    this.connections.clear();
    this.heartbeat?.stop();
    this.heartbeat = null;
    const wss = this.wss;
    const http = this.http;
    this.wss = null;
    this.http = null;
    if (wss) {
      for (const ws of wss.clients) ws.terminate(); // refused ones still closing too: ws 8 leaves them open
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
    if (http) {
      http.closeAllConnections(); // sockets still in their handshake
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  }

  private send(c: Connection, message: AgentResponse): void {
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(JSON.stringify(message));
  }

  private sendError(c: Connection, id: string | null, error: AgentError): void {
    this.send(c, { type: 'error', id, code: error.code, message: error.message, ...(error.pin ? { pin: error.pin } : {}) });
  }

  private trusted(origin: string | undefined): TrustedServer | null {
    try {
      // `tawqi-agent trust add/remove` may have run since: the file is read again when it changed.
      this.options.trust.reloadIfChanged();
    } catch (error) {
      this.options.log.error('trust store unreadable', { error: (error as Error).message });
      return null;
    }
    return this.options.trust.get(origin);
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const c: Connection = { ws, origin: origin ?? '', version: null, signs: new Map() };
    if (!this.trusted(origin)) {
      this.options.log.warn('connection refused: origin not trusted', { origin: origin ?? null });
      // Any web page can knock: tell the user once per origin, not at every attempt.
      if (!this.refusedOrigins.has(origin ?? '')) {
        if (this.refusedOrigins.size > 1000) this.refusedOrigins.clear();
        this.refusedOrigins.add(origin ?? '');
        this.options.ui.notify?.({ kind: 'origin-refused', origin: origin ?? null });
      }
      this.sendError(c, null, new AgentError('origin_not_trusted'));
      ws.close(AGENT_CLOSE_CODES.originNotTrusted, 'origin not trusted');
      return;
    }
    // Only now is the handshake deadline lifted: a refused client that never completes the close
    // handshake is disconnected at that deadline, not held for ws's 30 s close timeout.
    this.upgraded(req.socket);
    this.connections.add(c);
    this.heartbeat?.track(ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return this.sendError(c, null, new AgentError('bad_message', 'binary messages are not part of the protocol'));
      void this.onMessage(c, data.toString());
    });
    ws.on('close', () => {
      this.connections.delete(c);
      for (const controller of c.signs.values()) controller.abort();
    });
    // A protocol error (a message over the size limit, a bad frame): ws has already sent its close
    // frame (1009, 1002…) and ends the socket once it is out, reading and dropping what the page
    // still sends, with its close timer as the bound. Destroying the socket now would answer the
    // page's next bytes with a reset, which can throw the close frame away unread. Any other error
    // (the socket itself failed) drops the connection at once.
    ws.on('error', () => {
      if (ws.readyState !== ws.CLOSING) ws.terminate();
    });
  }

  private async onMessage(c: Connection, text: string): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.sendError(c, null, new AgentError('bad_message', 'not JSON'));
    }
    const parsed = AgentRequestSchema.safeParse(json);
    if (!parsed.success) {
      const id = typeof (json as { id?: unknown })?.id === 'string' ? (json as { id: string }).id.slice(0, 64) || null : null;
      const issue = parsed.error.issues[0];
      return this.sendError(c, id, new AgentError('bad_message', `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}`));
    }
    const msg = parsed.data;
    try {
      if (msg.type === 'hello') {
        const shared = AGENT_PROTOCOL_VERSIONS.filter((v) => msg.versions.includes(v));
        const version = shared.length > 0 ? Math.max(...shared) : null;
        if (version === null) {
          this.sendError(
            c,
            msg.id,
            new AgentError('unsupported_version', `the agent speaks versions ${AGENT_PROTOCOL_VERSIONS.join(', ')}`),
          );
          c.ws.close(AGENT_CLOSE_CODES.unsupportedVersion, 'unsupported version');
          return;
        }
        c.version = version;
        const server = this.trusted(c.origin);
        if (!server) throw new AgentError('origin_not_trusted');
        this.send(c, {
          type: 'hello',
          id: msg.id,
          version,
          versions: [...AGENT_PROTOCOL_VERSIONS],
          agent: { name: AGENT_NAME, version: this.options.agentVersion },
          origin: c.origin,
          server_key_fingerprint: server.fingerprint,
        });
        return;
      }
      if (c.version === null) throw new AgentError('hello_required');
      const server = this.trusted(c.origin);
      if (!server) throw new AgentError('origin_not_trusted');
      switch (msg.type) {
        case 'list-certificates': {
          const { tokens, entries } = await this.options.tokens.certificates(this.now());
          this.send(c, { type: 'certificates', id: msg.id, tokens, certificates: entries.filter((e) => e.offered).map((e) => e.info) });
          return;
        }
        case 'cancel': {
          c.signs.get(msg.target)?.abort();
          return;
        }
        case 'sign':
          await this.sign(c, msg, server);
          return;
      }
    } catch (error) {
      const agentError = error instanceof AgentError ? error : new AgentError('internal_error');
      if (!(error instanceof AgentError)) this.options.log.error('request failed', { type: msg.type, error: (error as Error).message });
      this.sendError(c, msg.id, agentError);
    }
  }

  private serverKey(server: TrustedServer): KeyObject {
    let key = this.serverKeys.get(server);
    if (!key) {
      key = publicKeyFromPem(server.key_pem);
      this.serverKeys.set(server, key);
    }
    return key;
  }

  /** `server`: the trusted server of the connection's origin, checked for this message. */
  private async sign(c: Connection, msg: SignRequest, server: TrustedServer): Promise<void> {
    if (c.signs.has(msg.id)) throw new AgentError('bad_message', 'a sign with this id is in progress');
    if (this.busy) throw new AgentError('busy');

    const check = verifyTicket({
      ticket: msg.ticket,
      origin: c.origin,
      serverKey: this.serverKey(server),
      nowS: Math.floor(this.now().getTime() / 1000),
      jtis: this.jtis,
    });
    if (!check.ok) {
      this.options.log.warn('ticket refused', { origin: c.origin, code: check.code, reason: check.reason });
      throw new AgentError(check.code, `${AGENT_ERRORS[check.code].en} (${check.reason})`);
    }
    const ticket = check.payload;
    if (msg.cert_sha256 !== ticket.cert_sha256) throw new AgentError('certificate_mismatch');

    this.busy = true;
    const controller = new AbortController();
    c.signs.set(msg.id, controller);
    // The ticket bounds how long the request may wait for the user.
    const untilExpiry = (ticket.exp + CLOCK_SKEW_S) * 1000 - this.now().getTime();
    const expiry = setTimeout(() => controller.abort(new AgentError('ticket_expired')), Math.max(0, untilExpiry));
    try {
      const cms = await this.signWithUser(c, msg, ticket, server.fingerprint, controller.signal);
      this.send(c, {
        type: 'signature',
        id: msg.id,
        cms: Buffer.from(cms).toString('base64'),
        cert_sha256: ticket.cert_sha256,
        request_id: ticket.request_id,
        signer_id: ticket.signer_id,
        jti: ticket.jti,
      });
      this.options.log.info('signed', { origin: c.origin, request_id: ticket.request_id });
      this.options.ui.notify?.({ kind: 'signed', origin: c.origin, title: ticket.title });
    } catch (error) {
      const agentError = error instanceof AgentError ? error : new AgentError('internal_error');
      if (!(error instanceof AgentError)) this.options.log.error('sign failed', { error: (error as Error).message });
      this.options.ui.notify?.({
        kind: 'sign-failed',
        origin: c.origin,
        code: agentError.code,
        message: agentError.message,
        ...(agentError.pin ? { pin: agentError.pin } : {}),
      });
      throw agentError;
    } finally {
      clearTimeout(expiry);
      c.signs.delete(msg.id);
      this.busy = false;
    }
  }

  private async signWithUser(
    c: Connection,
    msg: SignRequest,
    ticket: SignTicketPayload,
    fingerprint: string,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    const aborted = (): never => {
      throw abortError(signal);
    };
    const guard = <T>(promise: Promise<T>): Promise<T> => guarded(signal, promise);

    const { tokens, entries } = await guard(this.options.tokens.certificates(this.now()));
    if (tokens.length === 0) throw new AgentError('no_token');
    const entry = entries.find((e) => e.info.cert_sha256 === ticket.cert_sha256);
    if (!entry) throw new AgentError('certificate_not_found');
    if (!entry.offered)
      throw new AgentError('certificate_not_usable', `${AGENT_ERRORS.certificate_not_usable.en} (${entry.reasons.join(', ')})`);
    const pinState = entry.info.token.pin;
    if (pinState.locked) throw new AgentError('pin_locked', undefined, pinState);

    this.send(c, { type: 'sign-status', id: msg.id, status: 'awaiting_consent' });
    const preview = await guard(this.fetchPreview(ticket.preview_url, msg.ticket, ticket.iss, signal));
    const consent = await guard(
      this.options.ui.confirmSign(
        {
          origin: c.origin,
          serverKeyFingerprint: fingerprint,
          title: ticket.title,
          pages: ticket.pages,
          requestId: ticket.request_id,
          signerId: ticket.signer_id,
          digest: ticket.digest,
          expiresAt: ticket.exp,
          certificate: entry.info,
          preview,
        },
        signal,
      ),
    );
    if (!consent) throw new AgentError('user_canceled');

    // The PAdES signed attributes (no signing-time: the time is the PDF's /M and the server's timestamp).
    const certificateHash = new Uint8Array(createHash('sha256').update(entry.der).digest());
    const signedAttributes = padesSignedAttributes(entry.der, certificateHash, Buffer.from(ticket.digest, 'hex'));
    const pinRequest = { origin: c.origin, title: ticket.title, certificate: entry.info, token: entry.info.token, pin: pinState };
    this.send(c, { type: 'sign-status', id: msg.id, status: 'awaiting_pin' });
    let pin: Uint8Array | null = null;
    let closePinPad: (() => void) | undefined;
    try {
      if (pinState.pin_pad) {
        closePinPad = this.options.ui.showPinPad?.(pinRequest);
      } else {
        pin = await guard(this.options.ui.askPin(pinRequest, signal));
        if (!pin) throw new AgentError('user_canceled');
      }
      if (signal.aborted) aborted();
      this.send(c, { type: 'sign-status', id: msg.id, status: 'signing' });
      const outcome = await this.options.tokens.sign({
        slot: entry.slot,
        keyId: entry.keyId,
        keyType: entry.keyType,
        data: signedAttributes,
        pin,
      });
      if (!outcome.ok) throw signFailure(outcome);
      if (signal.aborted) aborted();
      // Detached SignedData: the signing certificate, then the chain found on the token; ECDSA comes as raw r‖s.
      return signedData({
        signerCertificate: entry.der,
        certificates: [entry.der, ...entry.chain],
        signedAttributes,
        signatureAlgorithm: sha256SignatureAlgorithm(entry.keyType),
        signature: entry.keyType === 'ec' ? ecdsaRawToDer(outcome.signature) : outcome.signature,
      });
    } finally {
      pin?.fill(0);
      closePinPad?.();
    }
  }
}

/** Why a signature was aborted: the signal's reason when it is an AgentError, else canceled. */
function abortError(signal: AbortSignal): AgentError {
  return signal.reason instanceof AgentError ? signal.reason : new AgentError('canceled');
}

/** Await `promise` unless `signal` aborts first; once aborted, the abort wins whatever the promise did. */
async function guarded<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) throw abortError(signal);
  let onAbort: () => void = () => {};
  const abortPromise = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([promise, abortPromise]);
    if (signal.aborted) throw abortError(signal); // a prompt closed by the abort answers too: the abort wins
    return result;
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The agent's error for a token's refusal to sign. */
function signFailure(outcome: Extract<SignOutcome, { ok: false }>): AgentError {
  const pinAfter = outcome.flags === null ? undefined : pinStateFromFlags(outcome.flags);
  switch (outcome.code) {
    case 'pin_incorrect':
      return new AgentError('pin_incorrect', undefined, pinAfter);
    case 'pin_locked':
      return new AgentError('pin_locked', undefined, pinAfter);
    case 'user_canceled':
      return new AgentError('user_canceled');
    case 'no_token':
      return new AgentError('no_token');
    case 'key_not_found':
      return new AgentError('certificate_not_usable', `${AGENT_ERRORS.certificate_not_usable.en} (no private key)`);
    case 'mechanism_unsupported':
      return new AgentError('mechanism_unsupported');
    default:
      return new AgentError('token_error', `${AGENT_ERRORS.token_error.en} (${outcome.message})`);
  }
}
