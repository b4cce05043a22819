/**
 * A real SMTP peer for tests (smtp-server on 127.0.0.1, port 0): optional STARTTLS or implicit TLS
 * with a self-signed certificate made by `openssl` in a temporary directory, optional AUTH
 * (PLAIN/LOGIN) checking one user and password. It keeps every message it accepts, raw, and parses
 * it just enough to assert on: headers (RFC 2047 encoded words decoded), the text/plain and
 * text/html parts of a multipart message, each decoded from quoted-printable or base64 as UTF-8.
 * No mail parser package is installed, so this is a small one for what nodemailer writes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface PeerOptions {
  /** 'starttls': plain connection that offers STARTTLS; 'implicit': TLS from the first byte. */
  tls?: 'none' | 'starttls' | 'implicit';
  auth?: { user: string; pass: string };
}

export interface CapturedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The authenticated user, or null. */
  user: string | null;
  /** Whether the session was encrypted (implicit TLS or STARTTLS). */
  secure: boolean;
  raw: string;
  /** Lower-case header names, values unfolded and decoded. */
  headers: Record<string, string>;
  subject: string;
  text: string | null;
  html: string | null;
}

export interface SmtpPeer {
  host: string;
  port: number;
  mails: CapturedMail[];
  authFailures: number;
  /** Resolves once at least `count` mails have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<CapturedMail[]>;
  /** Stop listening and drop open connections (the relay is down); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop and remove the certificate directory. */
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost (P-256, valid two days). */
function selfSigned(dir: string): { key: Buffer; cert: Buffer } {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

export async function startSmtpPeer(options: PeerOptions = {}): Promise<SmtpPeer> {
  const mode = options.tls ?? 'none';
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-smtp-'));
  const tlsFiles = mode === 'none' ? null : selfSigned(dir);
  const mails: CapturedMail[] = [];
  const waiters: (() => void)[] = [];
  let server: SMTPServer | null = null;
  let port = 0;

  const peer: SmtpPeer = {
    host: '127.0.0.1',
    port: 0,
    mails,
    authFailures: 0,
    waitFor: (count, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (mails.length < count) return false;
          clearTimeout(timer);
          resolve(mails);
          return true;
        };
        const timer = setTimeout(() => reject(new Error(`SMTP peer: ${mails.length} of ${count} mails after ${timeoutMs} ms`)), timeoutMs);
        if (!check()) waiters.push(() => void check());
      }),
    start: async () => {
      server = new SMTPServer({
        logger: false,
        secure: mode === 'implicit',
        ...(tlsFiles ? { key: tlsFiles.key, cert: tlsFiles.cert } : {}),
        disabledCommands: [...(mode === 'none' ? ['STARTTLS'] : []), ...(options.auth ? [] : ['AUTH'])],
        authOptional: !options.auth,
        // With TLS the peer accepts AUTH only on an encrypted session, like a real relay.
        allowInsecureAuth: mode === 'none',
        closeTimeout: 50,
        size: 5 * 1024 * 1024,
        onAuth(auth, _session, callback) {
          if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
            callback(null, { user: auth.username });
            return;
          }
          peer.authFailures++;
          callback(new Error('Invalid user or password'));
        },
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            const rcpt = session.envelope.rcptTo.map((r) => r.address);
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
            mails.push({
              envelopeFrom: from,
              envelopeTo: rcpt,
              user: typeof session.user === 'string' ? session.user : null,
              secure: session.secure,
              raw,
              ...parseMail(raw),
            });
            for (const w of waiters.splice(0)) w();
            callback();
          });
        },
      });
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.server.once('error', reject);
        listening.listen(port, '127.0.0.1', () => resolve());
      });
      port = (listening.server.address() as AddressInfo).port;
      peer.port = port;
    },
    stop: async () => {
      const running = server;
      server = null;
      if (!running) return;
      await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    close: async () => {
      await peer.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await peer.start();
  return peer;
}

// ---------------------------------------------------------------------------------------------
// A minimal MIME reader for what nodemailer writes
// ---------------------------------------------------------------------------------------------

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  return at < 0 ? { head: raw, body: '' } : { head: raw.slice(0, at), body: raw.slice(at + 4) };
}

function headersOf(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    out[name] ??= decodeWords(line.slice(colon + 1).trim());
  }
  return out;
}

function qpBytes(text: string, underscoreIsSpace: boolean): Buffer {
  const bytes: number[] = [];
  const s = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (underscoreIsSpace && c === '_') {
      bytes.push(0x20);
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (UTF-8, B or Q); the space between two adjacent words is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?[^?]+\?[BbQq]\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _charset: string, enc: string, data: string) =>
      (enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : qpBytes(data, true)).toString('utf8'),
    );
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return qpBytes(body, false).toString('utf8');
    default:
      return body;
  }
}

function parseMail(raw: string): Pick<CapturedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const { head, body } = splitHead(raw);
  const headers = headersOf(head);
  const parts: { type: string; content: string }[] = [];
  const collect = (h: Record<string, string>, b: string): void => {
    const type = (h['content-type'] ?? 'text/plain').toLowerCase();
    const boundary = /boundary="?([^";]+)"?/i.exec(h['content-type'] ?? '')?.[1];
    if (type.startsWith('multipart/') && boundary) {
      const sections = b.split(`--${boundary}`).slice(1);
      for (const section of sections) {
        if (section.startsWith('--')) break;
        const part = splitHead(section.replace(/^\r\n/, ''));
        collect(headersOf(part.head), part.body.replace(/\r\n$/, ''));
      }
      return;
    }
    parts.push({ type, content: decodeBody(b, h['content-transfer-encoding']) });
  };
  collect(headers, body);
  const find = (t: string) => parts.find((p) => p.type.startsWith(t))?.content.replace(/\r\n/g, '\n') ?? null;
  return { headers, subject: headers.subject ?? '', text: find('text/plain'), html: find('text/html') };
}
