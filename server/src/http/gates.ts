import { nowSeconds, type Clock } from '../clock.js';
import { liveGateRefusal, missingPlanFor, type Feature } from '../domain/plans.js';
import type { AppContext } from './context.js';
import type { AuthState } from './context.js';
import { ApiError } from '../errors.js';

/** Live requests need an active paid plan and a verified company (spec 4.1 rule 1, part 7). */
export function checkLiveGates(ctx: AppContext, auth: AuthState, clock: Clock = ctx.clock): void {
  if (!auth.livemode) return;
  const refusal = liveGateRefusal(auth.account, nowSeconds(clock));
  if (!refusal) return;
  const consoleUrl = ctx.config.TAWQI_CONSOLE_URL;
  if (refusal === 'kyb_required') throw new ApiError(refusal, null, { verify_url: `${consoleUrl}/verification` });
  throw new ApiError(refusal, null, { upgrade_url: `${consoleUrl}/billing` });
}

/** A live request using a feature above the plan: 403 plan_feature_unavailable, nothing created. */
export function checkFeature(ctx: AppContext, auth: AuthState, feature: Feature, param: string | null = null): void {
  const required = missingPlanFor(feature, auth.account.plan, auth.livemode);
  if (!required) return;
  throw new ApiError('plan_feature_unavailable', param, {
    feature,
    required_plan: required,
    upgrade_url: `${ctx.config.TAWQI_CONSOLE_URL}/billing`,
  });
}
