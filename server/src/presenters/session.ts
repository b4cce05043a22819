import type { Session } from '@tawqi/shared/api';
import { signingUrl } from '../domain/signingLinks.js';
import { sessionStatus } from '../domain/workflows.js';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';

/** The session object (spec 2.3): a workflow request and its signers. */
interface SessionRows {
  request: SignatureRequestRecord;
  signers: readonly SignerRecord[];
}

export interface SessionLinks {
  publicUrl: string;
  linkKey: Buffer;
}

function signUrl(r: SessionRows, s: SignerRecord, links: SessionLinks): string | null {
  const { request } = r;
  if (['draft', 'canceled', 'expired'].includes(request.status)) return null;
  // Channel link: every link from creation on (the page refuses a signer whose turn has not come).
  if (s.status === 'pending' && request.workflow?.channel !== 'link') return null;
  return signingUrl(links.publicUrl, links.linkKey, s.id, s.link_version);
}

export function presentSession(r: SessionRows, links: SessionLinks, currency: string): Session {
  const { request } = r;
  const w = request.workflow!;
  const signers = r.signers.map((s) => ({
    id: s.id,
    object: 'signer' as const,
    name: s.name,
    email: s.email,
    phone: s.phone,
    status: s.status,
    sign_url: signUrl(r, s, links),
  }));
  return {
    id: request.id,
    object: 'session' as const,
    status: sessionStatus(request.status),
    title: request.title,
    workflow_id: w.workflow_id,
    workflow_version: w.workflow_version,
    vendor_data: w.vendor_data,
    channel: w.channel,
    signers,
    sign_url: signers.length === 1 ? signers[0]!.sign_url : null,
    created_at: request.created_at,
    expires_at: request.expires_at,
    livemode: request.livemode,
    cost: {
      amount: request.livemode && request.charged ? request.cost_wallet_minor / 100 : 0,
      sends: request.livemode && request.charged ? request.cost_sends : 0,
      currency,
      source: request.cost_source ?? 'plan',
    },
    ...(request.return_url ? { return_url: request.return_url } : {}),
  };
}
