/**
 * The CLI shell's UI: consent and PIN prompts in the terminal. The PIN is read byte by byte (raw
 * mode on a TTY, no echo) into a buffer that the core wipes after the login; it never becomes a
 * JavaScript string here.
 *
 * Tests only: TAWQI_AGENT_TEST_CONSENT=yes|no answers the consent question, TAWQI_AGENT_TEST_PIN
 * gives the PIN. Only this file reads them; the Electron shell never imports it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describePinState } from '../core/pkcs11/flags.js';
import { formatFingerprint } from '../core/trust.js';
import type { AgentNotice, AgentUi, ConsentRequest, PinRequest } from '../core/ui.js';
import { printable as p } from './printable.js';

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const BACKSPACE = 0x7f;
const BS = 0x08;

/** Reads lines (or secret lines, as bytes) from a stream, one question at a time. */
export class TerminalInput {
  private buffer: number[] = [];
  private waiter: ((line: Uint8Array | null) => void) | null = null;
  private ended = false;
  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (const b of bytes) {
      if (!this.waiter) return; // nothing asked: typing between questions is ignored
      if (b === CTRL_C || (b === CTRL_D && this.buffer.length === 0)) {
        this.finish(null);
      } else if (b === 0x0a || b === 0x0d) {
        this.finish(Uint8Array.from(this.buffer));
      } else if (b === BACKSPACE || b === BS) {
        this.buffer.pop();
      } else {
        this.buffer.push(b);
      }
    }
    bytes.fill(0);
  };

  constructor(private readonly input: NodeJS.ReadStream | NodeJS.ReadableStream = process.stdin) {
    input.on('end', () => {
      this.ended = true;
      this.finish(null);
    });
  }

  private finish(line: Uint8Array | null): void {
    this.buffer.fill(0);
    this.buffer = [];
    const waiter = this.waiter;
    this.waiter = null;
    this.input.off('data', this.onData);
    const tty = this.input as NodeJS.ReadStream;
    if (tty.isTTY && typeof tty.setRawMode === 'function') tty.setRawMode(false);
    this.input.pause();
    waiter?.(line);
  }

  /** One line as bytes (the caller wipes them), or null on Ctrl-C / end of input / abort. */
  read(secret: boolean, signal?: AbortSignal): Promise<Uint8Array | null> {
    if (this.ended) return Promise.resolve(null);
    if (this.waiter) return Promise.reject(new Error('a question is already open'));
    return new Promise((resolve) => {
      this.waiter = resolve;
      const tty = this.input as NodeJS.ReadStream;
      if (secret && tty.isTTY && typeof tty.setRawMode === 'function') tty.setRawMode(true);
      this.input.on('data', this.onData);
      this.input.resume();
      signal?.addEventListener('abort', () => this.finish(null), { once: true });
    });
  }

  async question(signal?: AbortSignal): Promise<string | null> {
    const bytes = await this.read(false, signal);
    return bytes === null ? null : Buffer.from(bytes).toString('utf8').trim();
  }
}

export interface TerminalUiOptions {
  input?: TerminalInput;
  write?: (text: string) => void;
  env?: NodeJS.ProcessEnv;
}

const fmtDate = (s: number): string => new Date(s * 1000).toISOString().slice(0, 10);

export class TerminalUi implements AgentUi {
  private readonly input: TerminalInput;
  private readonly write: (text: string) => void;
  private readonly testConsent: string | undefined;
  private readonly testPin: string | undefined;

  constructor(options: TerminalUiOptions = {}) {
    const env = options.env ?? process.env;
    this.input = options.input ?? new TerminalInput();
    this.write = options.write ?? ((t) => void process.stderr.write(t));
    this.testConsent = env.TAWQI_AGENT_TEST_CONSENT;
    this.testPin = env.TAWQI_AGENT_TEST_PIN;
    if (this.testConsent !== undefined || this.testPin !== undefined) {
      this.write(
        'WARNING: test mode — consent and/or PIN come from TAWQI_AGENT_TEST_* environment variables. Never use this outside tests.\n',
      );
    }
  }

  async confirmSign(r: ConsentRequest, signal: AbortSignal): Promise<boolean> {
    const c = r.certificate;
    let preview: string;
    let file: string | null = null;
    if (r.preview.ok) {
      file = path.join(
        tmpdir(),
        `tawqi-preview-${r.requestId.replace(/[^A-Za-z0-9_-]/g, '')}-${Date.now()}.${r.preview.contentType === 'image/png' ? 'png' : 'pdf'}`,
      );
      writeFileSync(file, r.preview.bytes, { mode: 0o600 });
      preview = `first page saved to ${file} (${r.preview.contentType}) — open it before answering`;
    } else {
      preview = `UNAVAILABLE (${p(r.preview.reason)})`;
    }
    this.write(
      [
        '',
        '── Signature request ─────────────────────────────────────────',
        `Server:       ${p(r.origin)}`,
        `Server key:   ${formatFingerprint(r.serverKeyFingerprint)}`,
        `Document:     “${p(r.title)}” (${r.pages} page${r.pages === 1 ? '' : 's'})`,
        `Request:      ${p(r.requestId)} / signer ${p(r.signerId)}`,
        `Digest:       SHA-256 ${r.digest}`,
        `Certificate:  ${p(c.name)} — issued by ${p(c.issuer)} — valid until ${fmtDate(c.not_after)}`,
        `              ${c.key_type.toUpperCase()} ${c.curve ?? c.key_bits}, SHA-256 ${c.cert_sha256}`,
        `Token:        ${p(c.token.label)} (${p(c.token.manufacturer)} ${p(c.token.model)}) — ${describePinState(c.token.pin)}`,
        `Preview:      ${preview}`,
        `Expires:      ${new Date(r.expiresAt * 1000).toISOString()}`,
        '',
      ].join('\n'),
    );
    try {
      if (this.testConsent !== undefined) {
        const yes = this.testConsent === 'yes';
        this.write(`Sign this document? ${yes ? 'yes' : 'no'} (TAWQI_AGENT_TEST_CONSENT)\n`);
        return yes;
      }
      this.write('Sign this document? Type yes to sign, anything else to refuse: ');
      const answer = await this.input.question(signal);
      return answer?.toLowerCase() === 'yes';
    } finally {
      if (file) rmSync(file, { force: true }); // the preview is only for this decision
    }
  }

  async askPin(r: PinRequest, signal: AbortSignal): Promise<Uint8Array | null> {
    this.write(`PIN for token “${p(r.token.label)}” — ${describePinState(r.pin)}\n`);
    if (this.testPin !== undefined) {
      this.write('PIN: (TAWQI_AGENT_TEST_PIN)\n');
      return new TextEncoder().encode(this.testPin);
    }
    this.write('PIN (not shown; Ctrl-C cancels): ');
    const pin = await this.input.read(true, signal);
    this.write('\n');
    if (pin === null || pin.byteLength === 0) return null;
    return pin;
  }

  showPinPad(r: PinRequest): () => void {
    this.write(`Enter the PIN on the reader’s PIN pad for token “${p(r.token.label)}”. ${describePinState(r.pin)}\n`);
    return () => this.write('PIN pad done.\n');
  }

  notify(n: AgentNotice): void {
    if (n.kind === 'signed') this.write(`Signed “${p(n.title)}” for ${p(n.origin)}.\n`);
    else if (n.kind === 'sign-failed')
      this.write(`Not signed (${n.code}): ${p(n.message)}${n.pin ? ` — ${describePinState(n.pin)}` : ''}\n`);
    else this.write(`Refused a connection from an untrusted origin: ${n.origin === null ? '(no Origin header)' : p(n.origin)}\n`);
  }
}
