import assert from 'node:assert/strict';
import type { Store } from '../../server/src/store/db.js';
import { deflateSync } from 'node:zlib';
import { applySignerMove, type ActionOrigin } from '../../server/src/services/signerActions.js';
import type { TestServer } from './server.js';

/** A tiny valid PNG (one black pixel) as a data URL: a drawn signature for API-level tests. */
export function pngDataUrl(): string {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** A signer's page, driven over HTTP the way the browser code does (API contract: signing-page/API.md). */
export class PageClient {
  private constructor(
    private readonly base: string,
    readonly token: string,
    readonly html: string,
    readonly headers: Headers,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<PageClient> {
    const res = await fetch(url, { headers });
    const html = await res.text();
    const m = /<meta name="tawqi-page-token" content="([^"]+)">/.exec(html);
    assert.ok(m, `no page token in ${res.status} ${html.slice(0, 300)}`);
    return new PageClient(new URL(url).origin, m[1]!, html, res.headers);
  }

  /** The same page (its token) answered by another server on the same database (scale-out tests). */
  via(baseUrl: string): PageClient {
    return new PageClient(new URL(baseUrl).origin, this.token, this.html, this.headers);
  }

  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(`${this.base}/sign/api${path}`, {
      method,
      headers: { 'x-tawqi-page-token': this.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  }
}

/** The newest one-time code sent to a signer, read from the held message (no SMTP configured in tests). */
export async function lastOtp(from: Pick<TestServer, 'ctx'> | Store, signerId: string): Promise<string> {
  const db = 'ctx' in from ? from.ctx.store.db : from.db;
  const row = await db
    .selectFrom('messages')
    .select('body')
    .where('signer_id', '=', signerId)
    .where('kind', '=', 'otp')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const m = /(\d{6})/.exec(row.body);
  assert.ok(m, 'no code in the message');
  return m[1]!;
}

/**
 * Drive each signer to a signature through the signer service, as the signing page would: code
 * verified, a drawn signature, sign. With every signer signed the request completes (its seal job due).
 */
export async function signAll(s: Pick<TestServer, 'ctx'>, signerIds: string[], origin: ActionOrigin): Promise<void> {
  for (const id of signerIds) {
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, id, 'otp_verified', origin));
    await s.ctx.store.db.updateTable('signers').set({ signature_image: pngDataUrl() }).where('id', '=', id).execute();
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, id, 'sign', origin));
  }
}
