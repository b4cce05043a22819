/**
 * A byte-level client for the agent's socket, for what the `ws` client refuses to send: malformed
 * HTTP, headers or frames trickled byte by byte, clients that never answer a ping.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export class RawClient {
  /** Everything the agent sent, as latin1 (HTTP status lines are ASCII). */
  received = Buffer.alloc(0);
  /** Bytes written before the agent closed the connection. */
  written = 0;
  readonly closed: Promise<void>;
  /** Called on every chunk received (test/support/waitFor.ts). */
  readonly wakers = new Set<() => void>();

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      for (const wake of [...this.wakers]) wake();
    });
    socket.on('error', () => {}); // a reset by the agent shows as `closed`
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static open(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    const client = new RawClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(client));
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.socket.destroyed || this.socket.readableEnded;
  }

  write(bytes: Buffer | string): void {
    if (this.isClosed) return;
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
    this.written += buffer.length;
    this.socket.write(buffer);
  }

  /** The HTTP status of the first response line, once it has arrived; null when the agent closes without one. */
  async status(timeoutMs = 10_000): Promise<number | null> {
    const line = (): number | undefined => {
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(this.received.toString('latin1'));
      return m ? Number(m[1]) : undefined;
    };
    return new Promise((resolve, reject) => {
      const done = (value: number | null): void => {
        clearTimeout(timer);
        this.wakers.delete(check);
        resolve(value);
      };
      const check = (): void => {
        const status = line();
        if (status !== undefined) done(status);
      };
      const timer = setTimeout(() => reject(new Error(`no HTTP status within ${timeoutMs} ms`)), timeoutMs);
      this.wakers.add(check);
      void this.closed.then(() => done(line() ?? null));
      check();
    });
  }

  /**
   * Writes `bytes` one at a time, `gapMs` apart, until all are written or the agent closes the
   * connection; resolves how many were written. Bounded by the length of `bytes`.
   */
  async trickle(bytes: Buffer | string, gapMs: number): Promise<number> {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
    let sent = 0;
    for (const byte of buffer) {
      if (this.isClosed) break;
      this.write(Buffer.of(byte));
      sent++;
      const closedMeanwhile = await Promise.race([this.closed.then(() => true), delay(gapMs).then(() => false)]);
      if (closedMeanwhile) break;
    }
    return sent;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An RFC 6455 opening handshake; `headers` replace or remove (null) the standard ones. */
export function upgradeRequest(port: number, headers: Record<string, string | null> = {}, method = 'GET', path = '/'): string {
  const standard: Record<string, string | null> = {
    Host: `127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...headers,
  };
  const lines = Object.entries(standard)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** A client frame (masked, as RFC 6455 requires of clients); opcode 1 text, 2 binary. */
export function clientFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.of((fin ? 0x80 : 0) | opcode, 0x80 | length);
  } else if (length < 65_536) {
    header = Buffer.of((fin ? 0x80 : 0) | opcode, 0x80 | 126, length >> 8, length & 0xff);
  } else {
    header = Buffer.alloc(10);
    header[0] = (fin ? 0x80 : 0) | opcode;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const masked = Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] ?? 0)));
  return Buffer.concat([header, mask, masked]);
}

/** The frames the agent sent after its 101 answer (unmasked, as servers send them); an unfinished last frame is left out. */
export function serverFrames(received: Buffer): { opcode: number; payload: Buffer }[] {
  const start = received.indexOf('\r\n\r\n');
  if (start < 0) return [];
  const frames: { opcode: number; payload: Buffer }[] = [];
  let at = start + 4;
  while (at + 2 <= received.length) {
    const opcode = (received[at] ?? 0) & 0x0f;
    let length = (received[at + 1] ?? 0) & 0x7f;
    let header = 2;
    if (length === 126) {
      if (at + 4 > received.length) break;
      length = received.readUInt16BE(at + 2);
      header = 4;
    } else if (length === 127) {
      if (at + 10 > received.length) break;
      length = Number(received.readBigUInt64BE(at + 2));
      header = 10;
    }
    if (at + header + length > received.length) break;
    frames.push({ opcode, payload: received.subarray(at + header, at + header + length) });
    at += header + length;
  }
  return frames;
}
