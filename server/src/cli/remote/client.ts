/**
 * The HTTP side of `tawqi listen` and `tawqi trigger`: unlike the other commands they do not open
 * the store; they talk to a (possibly remote) server as an integrator would — the API through the
 * SDK (@tawqi/node, options.ts), the signer's page (which the SDK does not cover) with plain fetch.
 */

/** A refusal from the server (its error envelope), or no answer at all (status null). */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
    /** Seconds to wait before asking again (Retry-After of a 429). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export interface Answer<T> {
  body: T;
  headers: Headers;
}

/** How long one API call may take before it counts as no answer. */
const CALL_TIMEOUT_MS = 30_000;

async function send<T>(url: string, init: RequestInit, signal?: AbortSignal): Promise<Answer<T>> {
  const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new RemoteError(`no answer from ${new URL(url).origin}: ${causeOf(err)}`, null, null);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string; param?: string | null } } | undefined)?.error;
    const what = error ? `${error.code}: ${error.message}${error.param ? ` (${error.param})` : ''}` : text.slice(0, 200);
    const retryAfter = Number(res.headers.get('retry-after')) || null;
    throw new RemoteError(
      `${init.method ?? 'GET'} ${new URL(url).pathname} answered ${res.status} ${what}`,
      res.status,
      error?.code ?? null,
      retryAfter,
    );
  }
  return { body: body as T, headers: res.headers };
}

/** The useful part of a fetch failure: "connect ECONNREFUSED 127.0.0.1:3000" rather than "fetch failed". */
export function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.message) return cause.message;
  if (cause?.code) return cause.code;
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  return err instanceof Error ? err.message : String(err);
}

/** A signer's page, driven over HTTP the way the browser code does (signing-page/API.md). */
export class SignerPage {
  private constructor(
    private readonly api: string,
    private readonly token: string,
  ) {}

  /** Load the page of a signing link: the server mints a page token into the HTML. */
  static async open(signingUrl: string): Promise<SignerPage> {
    let res: Response;
    try {
      res = await fetch(signingUrl, { headers: { 'accept-language': 'en' }, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    } catch (err) {
      throw new RemoteError(`no answer from the signing page ${new URL(signingUrl).origin}: ${causeOf(err)}`, null, null);
    }
    const html = await res.text();
    const token = /<meta name="tawqi-page-token" content="([^"]+)">/.exec(html)?.[1];
    const api = /<meta name="tawqi-api" content="([^"]+)">/.exec(html)?.[1] ?? '/sign/api';
    if (!res.ok || !token) throw new RemoteError(`the signing page answered ${res.status} without a page token`, res.status, null);
    return new SignerPage(new URL(api, signingUrl).toString(), token);
  }

  /** GET (no body) or POST (a JSON body, `{}` when the call takes none). */
  call<T>(method: 'GET' | 'POST', path: string, body: unknown = {}): Promise<Answer<T>> {
    const post = method === 'POST';
    return send<T>(`${this.api}${path}`, {
      method,
      headers: { 'x-tawqi-page-token': this.token, 'accept-language': 'en', ...(post ? { 'content-type': 'application/json' } : {}) },
      body: post ? JSON.stringify(body) : undefined,
    });
  }
}
