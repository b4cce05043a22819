import { createHash, randomBytes } from 'node:crypto';
import type { SigningSession } from '@tawqi/shared/api';
import { nowSeconds } from '../clock.js';
import { isFinal } from '../domain/requestStates.js';
import { domainAccepted } from '../domain/signatureRequestInput.js';
import { ApiError } from '../errors.js';
import type { Account } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import { insertSigningSession } from '../store/pageSessions.js';
import { getRequestById, getSigner } from '../store/signatureRequests.js';
import type { ServiceContext } from '../context.js';

/** Spec 2.8 / 4.3: a signing session lasts 30 minutes, for one signer, for signing only. */
export const SIGNING_SESSION_SECONDS = 30 * 60;

export interface SigningSessionInput {
  mode?: 'redirect';
  return_url?: string;
  success_url?: string;
  cancel_url?: string;
  embed_origin?: string;
}

/** Origins allowed to embed: the account's list and its publishable keys' allowed origins. */
export async function embeddingOrigins(trx: Db, account: Account): Promise<string[]> {
  const keys = await trx
    .selectFrom('api_keys')
    .select('allowed_origins')
    .where('account_id', '=', account.id)
    .where('kind', '=', 'publishable')
    .where('revoked_at', 'is', null)
    .execute();
  const all = new Set(account.allowed_origins);
  for (const k of keys) for (const o of JSON.parse(k.allowed_origins) as string[]) all.add(o);
  return [...all];
}

export async function createSigningSession(
  ctx: ServiceContext,
  trx: Db,
  actor: { account: Account; livemode: boolean },
  signerId: string,
  input: SigningSessionInput,
): Promise<SigningSession> {
  const signer = await getSigner(trx, signerId);
  const request = signer && (await getRequestById(trx, signer.signature_request_id));
  if (!signer || !request || request.account_id !== actor.account.id || request.livemode !== actor.livemode)
    throw new ApiError('not_found', 'id');
  if (
    isFinal(request.status) ||
    request.status === 'draft' ||
    signer.status === 'signed' ||
    signer.status === 'declined' ||
    signer.status === 'pending'
  ) {
    throw new ApiError('invalid_state', 'id', { reason: signer.status === 'pending' ? 'not_your_turn' : 'request_not_open' });
  }
  for (const f of ['return_url', 'success_url', 'cancel_url'] as const) {
    const url = input[f];
    if (url && !domainAccepted(url, actor.account.accepted_domains)) throw new ApiError('domain_not_accepted', f);
  }
  let embedOrigin: string | null = null;
  if (input.embed_origin) {
    if (!(await embeddingOrigins(trx, actor.account)).includes(input.embed_origin)) {
      throw new ApiError(
        'parameter_invalid',
        'embed_origin',
        {},
        {},
        {
          en: 'embed_origin must be one of the account’s allowed origins.',
          ar: 'يجب أن يكون embed_origin أحد الأصول المسموح بها في الحساب.',
        },
      );
    }
    embedOrigin = input.embed_origin;
  }
  const token = randomBytes(24).toString('base64url');
  const now = nowSeconds(ctx.clock);
  const expiresAt = now + SIGNING_SESSION_SECONDS;
  await insertSigningSession(trx, {
    id: createHash('sha256').update(token).digest('hex'),
    signer_id: signer.id,
    mode: input.mode ?? 'embedded',
    return_url: input.return_url ?? null,
    success_url: input.success_url ?? null,
    cancel_url: input.cancel_url ?? null,
    embed_origin: embedOrigin,
    expires_at: expiresAt,
    invalidated_at: null,
    created_at: now,
  });
  return {
    object: 'signing_session' as const,
    signer: signer.id,
    signing_url: `${ctx.publicUrl}/sign/s/${token}`,
    expires_at: expiresAt,
    mode: input.mode ?? 'embedded',
  };
}
