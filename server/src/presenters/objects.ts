import type { SignatureRequest, Signer } from '@tawqi/shared/api';
import type { ServiceContext } from '../context.js';
import { maskEmail, maskPhone } from '../domain/keys.js';
import { amount } from '../domain/money.js';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';
import { signingUrl } from '../domain/signingLinks.js';

/**
 * How an object is shown. Event snapshots carry no signing links (the event log lives long and
 * links are bearer credentials); publishable-key responses mask contacts and carry no links
 * (spec part 5, rule 7).
 */
export interface ObjectView {
  links: { publicUrl: string; linkKey: Buffer } | null;
  mask: boolean;
  currency: string;
  publicUrl: string;
}

/**
 * The view a response uses: secret keys get links and full contacts; publishable keys get masked
 * contacts and no links, except that their creation response keeps the contacts they just sent
 * (spec part 5 rule 7, 4.1 rule 4).
 */
export function viewFor(
  ctx: Pick<ServiceContext, 'publicUrl' | 'secrets' | 'config'>,
  req: { tawqi: { auth?: { publishable: boolean; account: { currency: string } } | null } },
  opts: { creation?: boolean } = {},
): ObjectView {
  const publishable = req.tawqi.auth?.publishable ?? false;
  return {
    links: publishable ? null : { publicUrl: ctx.publicUrl, linkKey: ctx.secrets.linkKey },
    mask: publishable && !opts.creation,
    currency: req.tawqi.auth?.account.currency ?? ctx.config.TAWQI_CURRENCY,
    publicUrl: ctx.publicUrl,
  };
}

export function signerObject(s: SignerRecord, r: SignatureRequestRecord, view: ObjectView): Signer {
  const withLink = view.links && !view.mask && s.status !== 'pending' && !['canceled', 'expired', 'draft'].includes(r.status);
  return {
    id: s.id,
    object: 'signer' as const,
    signature_request: r.id,
    name: s.name,
    email: s.email === null ? null : view.mask ? maskEmail(s.email) : s.email,
    phone: s.phone === null ? null : view.mask ? maskPhone(s.phone) : s.phone,
    type: s.type,
    method: s.method,
    require_identity: s.require_identity,
    order: s.position,
    status: s.status,
    signing_url: withLink ? signingUrl(view.links!.publicUrl, view.links!.linkKey, s.id, s.link_version) : null,
    sent_at: s.sent_at,
    viewed_at: s.viewed_at,
    signed_at: s.signed_at,
    declined_at: s.declined_at,
    decline_reason: s.decline_reason,
    identity: s.require_identity
      ? {
          status: s.identity.status,
          provider: s.identity.provider,
          level: s.identity.level,
          verification_id: s.identity.verification_id,
          name_match: s.identity.name_match,
        }
      : { status: 'not_required', provider: null, level: null, verification_id: null, name_match: null },
    fields: s.fields,
    ...(r.workflow
      ? { workflow_id: r.workflow.workflow_id, workflow_version: r.workflow.workflow_version, vendor_data: r.workflow.vendor_data }
      : {}),
  };
}

export function requestObject(r: SignatureRequestRecord, signers: readonly SignerRecord[], view: ObjectView): SignatureRequest {
  return {
    id: r.id,
    object: 'signature_request' as const,
    livemode: r.livemode,
    status: r.status,
    title: r.title,
    legal_level: r.legal_level,
    format: r.format,
    language: r.language,
    source: { type: 'template' as const, template_id: r.template_id },
    ordered: r.ordered,
    require_identity: r.require_identity,
    reference: r.reference,
    reminders: r.reminders,
    expires_at: r.expires_at,
    completed_at: r.completed_at,
    download_url: r.status === 'completed' ? `${view.publicUrl}/api/v1/signature_requests/${r.id}/download` : null,
    metadata: r.metadata,
    return_url: r.return_url,
    success_url: r.success_url,
    cancel_url: r.cancel_url,
    cost: r.charged
      ? { amount: amount(r.cost_wallet_minor, view.currency).amount, sends: r.cost_sends, currency: view.currency, source: r.cost_source }
      : null,
    created_at: r.created_at,
    signers: signers.map((s) => signerObject(s, r, view)),
    ...(r.workflow
      ? {
          workflow_id: r.workflow.workflow_id,
          workflow_version: r.workflow.workflow_version,
          vendor_data: r.workflow.vendor_data,
          channel: r.workflow.channel,
        }
      : {}),
  };
}
