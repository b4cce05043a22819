import { z } from 'zod';
import { nowSeconds, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { cancelPendingDeliveries, insertEndpoint, updateEndpoint, type WebhookEndpoint } from '../store/webhooks.js';
import { EVENT_TYPES, isKnownEventType } from '../domain/eventTypes.js';
import { resolveTarget, TargetRefused, urlShapeProblem, bareHost, type Resolver } from './reachability.js';
import { newWebhookSecret } from './signing.js';

/**
 * The endpoint registry: input rules, URL checks, and the writes of create, update, delete and
 * secret rotation. Endpoints made with a test key get test events only; live keys and the CLI make
 * live endpoints (spec 6.1: "endpoints added from the console are live").
 */

const enabledEvents = z
  .array(z.string().refine(isKnownEventType, 'unknown event type (use a type from the event list, or * for all)'))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .transform((list) => [...new Set(list)]);

const description = z.string().trim().max(500);

export const endpointCreateSchema = z.strictObject({
  url: z.string().min(1),
  enabled_events: enabledEvents,
  description: description.optional(),
});
export type EndpointCreate = z.infer<typeof endpointCreateSchema>;

/** Stripe-style update: any of the fields; `disabled: true` pauses the endpoint (status disabled) and cancels its pending deliveries. */
export const endpointUpdateSchema = z.strictObject({
  url: z.string().min(1).optional(),
  enabled_events: enabledEvents.optional(),
  description: description.nullable().optional(),
  disabled: z.boolean().optional(),
});
export type EndpointUpdate = z.infer<typeof endpointUpdateSchema>;

/** The URL problem, in both languages, for a 400 parameter_invalid on `url` (or an operator error). */
export class EndpointUrlProblem extends Error {
  constructor(
    readonly en: string,
    readonly ar: string,
  ) {
    super(en);
  }
}

/** Longest overlap of a secret rotation: a week. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86400;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

/**
 * Check a URL before it is stored: https, well formed, and (unless private targets are allowed)
 * resolving only to public addresses. Runs before the write transaction: DNS is slow. Returns the
 * normalised URL.
 */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean, resolve: Resolver): Promise<string> {
  const shape = urlShapeProblem(raw);
  if (shape) throw new EndpointUrlProblem(`url ${shape}.`, 'يجب أن يكون العنوان رابط https كاملًا صالحًا دون بيانات دخول أو جزء (#).');
  const url = new URL(raw);
  try {
    await resolveTarget(bareHost(url), allowPrivate, resolve);
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    if (err.reason === 'unresolvable') {
      throw new EndpointUrlProblem(
        `url must be publicly reachable: ${err.message}.`,
        `يجب أن يكون العنوان قابلًا للوصول من الإنترنت: تعذّر العثور على المضيف ${url.hostname}.`,
      );
    }
    throw new EndpointUrlProblem(
      `url must be publicly reachable: ${err.message}. Loopback, private, link-local and reserved addresses are refused.`,
      `يجب أن يكون العنوان قابلًا للوصول من الإنترنت: المضيف ${url.hostname} يشير إلى عنوان غير عام (محلي أو خاص أو محجوز).`,
    );
  }
  return url.href;
}

export interface NewEndpoint {
  accountId: string;
  livemode: boolean;
  url: string;
  enabledEvents: string[];
  description: string | null;
  via: 'api' | 'cli';
}

/** Create an endpoint; its secret is returned here and never again. */
export async function createEndpoint(trx: Db, clock: Clock, input: NewEndpoint): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const now = nowSeconds(clock);
  const secret = newWebhookSecret();
  const endpoint: WebhookEndpoint = {
    id: newId('webhookEndpoint', clock),
    account_id: input.accountId,
    livemode: input.livemode,
    url: input.url,
    description: input.description || null,
    enabled_events: input.enabledEvents,
    status: 'enabled',
    secret,
    previous_secret: null,
    previous_secret_expires_at: null,
    created_via: input.via,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await insertEndpoint(trx, endpoint);
  return { endpoint, secret };
}

/** Apply an update (the URL already checked). Disabling cancels the pending deliveries; enabling again does not revive them. */
export async function changeEndpoint(
  trx: Db,
  clock: Clock,
  endpoint: WebhookEndpoint,
  changes: Omit<EndpointUpdate, 'url'> & { url?: string },
): Promise<WebhookEndpoint> {
  const now = nowSeconds(clock);
  const next: WebhookEndpoint = { ...endpoint, updated_at: now };
  if (changes.url !== undefined) next.url = changes.url;
  if (changes.enabled_events !== undefined) next.enabled_events = changes.enabled_events;
  if (changes.description !== undefined) next.description = changes.description || null;
  if (changes.disabled !== undefined) next.status = changes.disabled ? 'disabled' : 'enabled';
  await updateEndpoint(trx, endpoint.id, {
    url: next.url,
    enabled_events: next.enabled_events,
    description: next.description,
    status: next.status,
    updated_at: now,
  });
  if (next.status === 'disabled' && endpoint.status === 'enabled') await cancelPendingDeliveries(trx, endpoint.id, now);
  return next;
}

/** Delete: the endpoint stops receiving at once, its pending deliveries are canceled and its secrets erased; its delivery history stays. */
export async function deleteEndpoint(trx: Db, clock: Clock, endpoint: WebhookEndpoint): Promise<void> {
  const now = nowSeconds(clock);
  await updateEndpoint(trx, endpoint.id, {
    deleted_at: now,
    updated_at: now,
    secret: null,
    previous_secret: null,
    previous_secret_expires_at: null,
  });
  await cancelPendingDeliveries(trx, endpoint.id, now);
}

/**
 * Rotate the secret: deliveries are signed with the new secret and, for `overlapSeconds`, with the
 * old one too (two v1 values), so a receiver switches without a gap. A rotation during an overlap
 * ends the older overlap (at most two secrets sign).
 */
export async function rotateEndpointSecret(
  trx: Db,
  clock: Clock,
  endpoint: WebhookEndpoint,
  overlapSeconds: number,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const now = nowSeconds(clock);
  const secret = newWebhookSecret();
  const keepOld = overlapSeconds > 0 && endpoint.secret !== null;
  const changes = {
    secret,
    previous_secret: keepOld ? endpoint.secret : null,
    previous_secret_expires_at: keepOld ? now + overlapSeconds : null,
    updated_at: now,
  };
  await updateEndpoint(trx, endpoint.id, changes);
  return { endpoint: { ...endpoint, ...changes }, secret };
}

/** The secrets that sign at `now`: the current one, then the previous one during its overlap. */
export function signingSecrets(
  e: Pick<WebhookEndpoint, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now: number,
): string[] {
  const secrets = e.secret ? [e.secret] : [];
  if (e.previous_secret && e.previous_secret_expires_at !== null && now < e.previous_secret_expires_at) secrets.push(e.previous_secret);
  return secrets;
}
