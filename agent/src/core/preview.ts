/**
 * The preview of the document's first page, fetched from the server with the ticket as Bearer token
 * before the user is asked to consent. Only from the ticket's own origin (the ticket is never sent
 * anywhere else), PNG or PDF, at most 10 MB.
 */
export type Preview = { ok: true; contentType: 'image/png' | 'application/pdf'; bytes: Uint8Array } | { ok: false; reason: string };

export const PREVIEW_MAX_BYTES = 10 * 1024 * 1024;

export async function fetchPreview(previewUrl: string, ticket: string, issuer: string, signal?: AbortSignal): Promise<Preview> {
  let url: URL;
  try {
    url = new URL(previewUrl);
  } catch {
    return { ok: false, reason: 'the preview URL is not a URL' };
  }
  if (url.origin !== issuer) return { ok: false, reason: 'the preview is not on the requesting server' };
  try {
    const timeout = AbortSignal.timeout(10_000);
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${ticket}`, accept: 'image/png, application/pdf' },
      redirect: 'error',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) return { ok: false, reason: `the server answered ${response.status}` };
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'image/png' && type !== 'application/pdf') return { ok: false, reason: `unexpected preview type ${type || 'none'}` };
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > PREVIEW_MAX_BYTES) return { ok: false, reason: 'the preview is too large' };
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > PREVIEW_MAX_BYTES) return { ok: false, reason: 'the preview is too large' };
    const magicOk = type === 'image/png' ? bytes[0] === 0x89 && bytes[1] === 0x50 : bytes[0] === 0x25 && bytes[1] === 0x50;
    if (!magicOk) return { ok: false, reason: 'the preview is not a PNG or PDF file' };
    return { ok: true, contentType: type, bytes };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
