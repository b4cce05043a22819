/**
 * Validating any signed PDF (`tawqi verify`, POST /verify): the installation's trust anchors around
 * the validator engine. Anchors are this installation's CA (it issues the seal and the TSA), the top
 * of an operator seal's chain (TAWQI_SEAL_P12), the qes roots (TAWQI_QES_TRUSTED_ROOTS) and any the
 * caller adds. Nothing is stored and the PDF's content is never logged.
 */
import type { Config } from '../config.js';
import type { ServiceContext } from '../context.js';
import { TrustedRoots } from '../sealing/qes/certificates.js';
import { validatePdf, type Lang, type ValidationReport } from '../sealing/validation/index.js';

/** The anchors every validation here trusts, plus `extra` (e.g. `--trust` files). */
export function trustAnchors(config: Config, installation: readonly Uint8Array[], extra: readonly Uint8Array[] = []): Uint8Array[] {
  return [...installation, ...new TrustedRoots(config.TAWQI_QES_TRUSTED_ROOTS).get(), ...extra];
}

/** The running server's own anchors: its CA and, for an operator seal, the last certificate of its chain. */
export function installationAnchors(ctx: ServiceContext): Uint8Array[] {
  const sealTop = ctx.pki.seal.chain.at(-1);
  return [ctx.pki.ca.certificate, ...(sealTop ? [sealTop] : [])];
}

/** Validates an uploaded PDF in memory against the server's anchors. */
export function validateUpload(ctx: ServiceContext, pdf: Uint8Array, lang: Lang): Promise<ValidationReport> {
  return validatePdf(pdf, { trustAnchors: trustAnchors(ctx.config, installationAnchors(ctx)), now: new Date(ctx.clock.nowMs()), lang });
}
