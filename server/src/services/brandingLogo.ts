/**
 * The logo upload (spec 2.9 logo_url): the type is read from the bytes (PNG, JPEG, or an SVG that
 * cannot carry script: domain/logoImage.ts), the size is capped by TAWQI_BRANDING_LOGO_MAX_BYTES
 * (the HTTP layer stops reading past it), and the file is stored like other files (the configured
 * file storage) under a name made of the account and the SHA-256 of the bytes, so each logo has its
 * own address and can be cached for ever. The branding then points at it (audited as any change).
 */
import { createHash } from 'node:crypto';
import { LOGO_PATH_PREFIX } from '../domain/branding.js';
import { brandingLogoKey } from '../domain/fileKeys.js';
import { LOGO_CONTENT_TYPES, sniffLogo, svgScriptRisk, type LogoType } from '../domain/logoImage.js';
import { ApiError, invalidParam } from '../errors.js';
import type { AuditActor } from './consoleAudit.js';
import { brandingAccount, saveBranding, type BrandingDeps } from './branding.js';
import type { FileStorage } from '../store/files/index.js';

/** The declared Content-Type, when it names an image type, must agree with the bytes. */
function declaredType(contentType: string | undefined): string | null {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type && type.startsWith('image/') ? type : null;
}

/** The logo's type, or the refusal: unknown content, a Content-Type that says otherwise, a risky SVG. */
export function checkLogo(bytes: Uint8Array, contentType: string | undefined): LogoType {
  if (bytes.length === 0)
    throw new ApiError(
      'parameter_missing',
      'logo',
      {},
      {},
      { en: 'Send the logo file as the request body.', ar: 'أرسل ملف الشعار في نص الطلب.' },
    );
  const type = sniffLogo(bytes);
  if (!type)
    throw invalidParam(
      'logo',
      'The logo must be a PNG, JPEG or SVG image (judged by its content).',
      'يجب أن يكون الشعار صورة PNG أو JPEG أو SVG (بحسب محتوى الملف).',
    );
  const declared = declaredType(contentType);
  if (declared && declared !== LOGO_CONTENT_TYPES[type]) {
    throw invalidParam(
      'logo',
      `The file is ${LOGO_CONTENT_TYPES[type]} by its content but was sent as ${declared}.`,
      `محتوى الملف ${LOGO_CONTENT_TYPES[type]} لكنه أُرسل على أنه ${declared}.`,
    );
  }
  const risk = type === 'svg' ? svgScriptRisk(bytes) : null;
  if (risk) {
    throw invalidParam(
      'logo',
      `This SVG is refused because it could carry script or load other content (${risk}); upload a plain SVG drawing, or a PNG.`,
      `رُفض ملف SVG هذا لأنه قد يحمل شيفرة أو يحمّل محتوى آخر (${risk})؛ ارفع رسم SVG بسيطًا أو صورة PNG.`,
    );
  }
  return type;
}

export async function uploadLogo(
  deps: BrandingDeps & { files: FileStorage },
  who: AuditActor & { account_id: string },
  bytes: Uint8Array,
  contentType: string | undefined,
): Promise<{ logo_url: string; content_type: string; bytes: number }> {
  const account = await brandingAccount(deps, who.account_id);
  const type = checkLogo(bytes, contentType);
  const name = `${account.id}-${createHash('sha256').update(bytes).digest('hex')}.${type}`;
  // The file before the transaction: an unused file is harmless, a branding naming a missing file is not.
  await deps.files.put(brandingLogoKey(name), bytes);
  const logoUrl = `${LOGO_PATH_PREFIX}${name}`;
  await saveBranding(deps, who, (current) => ({ ...current, logo_url: logoUrl }));
  return { logo_url: logoUrl, content_type: LOGO_CONTENT_TYPES[type], bytes: bytes.length };
}

/** An uploaded logo for the public route: its bytes and type, or null (unknown or malformed name). */
export async function readLogo(files: FileStorage, name: string): Promise<{ bytes: Buffer; contentType: string } | null> {
  const m = /^[A-Za-z0-9_]+-[0-9a-f]{64}\.(png|jpg|svg)$/.exec(name);
  if (!m) return null;
  const bytes = await files.get(brandingLogoKey(name));
  return bytes ? { bytes, contentType: LOGO_CONTENT_TYPES[m[1] as LogoType] } : null;
}
