/**
 * The public API (/api/v1) as the signed-in user (issue 15 point 6): a short-lived internal
 * credential (`ck_…`) of the account for the chosen live/test mode, from POST
 * /console/api/credentials, kept in memory only (never in storage a script could read later),
 * renewed a minute before it expires or when the API answers 401. Errors are the console's
 * ApiError with the envelope's message (in the page's language) and `param`.
 */
import { ApiError, NetworkError, type ConsoleApi } from './api.js';

const API = '/api/v1';
const TIMEOUT_MS = 60_000;
/** Renew this long before the credential expires, so a call never starts with a dying token. */
const RENEW_EARLY_MS = 60_000;

interface Credential {
  token: string;
  /** Unix seconds. */
  expires_at: number;
  livemode: boolean;
  access: 'write' | 'read';
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A downloaded file: its bytes, the name the server suggests, and X-File-Sha256 when sent. */
export interface Download {
  blob: Blob;
  filename: string;
  sha256: string | null;
}

type Query = Record<string, string | number | undefined | null>;

export class PublicApi {
  private readonly credentials = new Map<boolean, Promise<Credential>>();

  constructor(private readonly consoleApi: ConsoleApi) {}

  /** Forget every credential (sign-out, another user). */
  clear(): void {
    this.credentials.clear();
  }

  get<T>(livemode: boolean, path: string, query: Query = {}): Promise<T> {
    return this.json<T>(livemode, 'GET', path + queryString(query));
  }

  post<T>(livemode: boolean, path: string, body: unknown = {}, opts: { idempotent?: boolean } = {}): Promise<T> {
    return this.json<T>(livemode, 'POST', path, body, opts.idempotent ? crypto.randomUUID() : undefined);
  }

  delete<T>(livemode: boolean, path: string): Promise<T> {
    return this.json<T>(livemode, 'DELETE', path);
  }

  async download(livemode: boolean, path: string, fallbackName: string): Promise<Download> {
    const res = await this.send(livemode, 'GET', path);
    if (!res.ok) throw await refusal(res);
    const disposition = res.headers.get('content-disposition') ?? '';
    const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
    return { blob: await res.blob(), filename: name, sha256: res.headers.get('x-file-sha256') };
  }

  private async json<T>(livemode: boolean, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const res = await this.send(livemode, method, path, body, idempotencyKey);
    if (!res.ok) throw await refusal(res);
    try {
      return (await res.json()) as T;
    } catch (err) {
      throw new NetworkError(err);
    }
  }

  /** One call with a fresh credential; on 401 (revoked, expired early) once more with a new one. */
  private async send(livemode: boolean, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Response> {
    let res = await this.attempt(await this.credential(livemode), method, path, body, idempotencyKey);
    if (res.status === 401) {
      this.credentials.delete(livemode);
      res = await this.attempt(await this.credential(livemode), method, path, body, idempotencyKey);
    }
    return res;
  }

  private async attempt(c: Credential, method: string, path: string, body: unknown, idempotencyKey?: string): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-language': this.consoleApi.language,
      authorization: `Bearer ${c.token}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    try {
      return await fetch(`${API}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new NetworkError(err);
    }
  }

  private credential(livemode: boolean): Promise<Credential> {
    const held = this.credentials.get(livemode);
    if (held) {
      return held.then((c) => {
        if (c.expires_at * 1000 - RENEW_EARLY_MS > Date.now()) return c;
        this.credentials.delete(livemode);
        return this.credential(livemode);
      });
    }
    const fresh = this.consoleApi.call<Credential>('POST', '/credentials', { livemode });
    this.credentials.set(livemode, fresh);
    // A failed issue is not kept: the next call asks again.
    fresh.catch(() => this.credentials.delete(livemode));
    return fresh;
  }
}

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function refusal(res: Response): Promise<Error> {
  type Envelope = { error?: { code?: unknown; message?: unknown; param?: unknown } } | null;
  let json: Envelope;
  try {
    json = (await res.json()) as Envelope;
  } catch {
    return new NetworkError(new Error(`HTTP ${res.status}`));
  }
  const e = json?.error;
  if (!e || typeof e.code !== 'string') return new NetworkError(new Error(`HTTP ${res.status}`));
  return new ApiError(res.status, {
    code: e.code,
    message: typeof e.message === 'string' ? e.message : null,
    param: typeof e.param === 'string' ? e.param : null,
  });
}

/** Hand a downloaded file to the browser's save (a link cannot carry the Bearer header). */
export function saveFile(file: Download): void {
  const url = URL.createObjectURL(file.blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file.filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
