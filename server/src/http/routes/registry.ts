import type { ErrorCode } from '@tawqi/shared';
import type { NextFunction, Request, Response, Router } from 'express';
import { z } from 'zod';
import { forbiddenCharacterAt, type ForbiddenAt } from '../../domain/inputText.js';
import { ApiError } from '../../errors.js';
import { requireSecretKey } from '../middleware/authenticate.js';
import type { AppContext } from '../context.js';

export type Method = 'get' | 'post' | 'patch' | 'delete';

export interface HandlerInput<B, Q> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
}

/**
 * One declaration per endpoint: Express routing, input validation and the OpenAPI document all
 * come from it, so the published document cannot drift from what the server accepts.
 */
export interface RouteSpec<B = unknown, Q = unknown> {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  /** public: no key; key: any key that passes the key rules; secret: publishable keys refused. */
  access: 'public' | 'key' | 'secret';
  body?: z.ZodType<B>;
  /** The body as the document declares it, for a route that checks its body itself (POST /sessions). */
  documentedBody?: z.ZodType;
  query?: z.ZodType<Q>;
  status: number;
  /**
   * The success body: an API object of @tawqi/shared/api (JSON). A route that answers another
   * content type names it in `produces` instead; the document refuses a route with neither.
   */
  response?: z.ZodType;
  produces?: string;
  /** The codes this route's own checks answer; those of the chain in front of it are added by openapi.ts. */
  errors: ErrorCode[];
  handle: (ctx: AppContext, input: HandlerInput<B, Q>) => Promise<void>;
}

export function defineRoute<B = undefined, Q = undefined>(spec: RouteSpec<B, Q>): RouteSpec<B, Q> {
  return spec;
}

export type AnyRoute = RouteSpec<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A path into the input as `param` names it: `signers[1].email`; null for the input itself. */
function paramName(path: readonly PropertyKey[]): string | null {
  return (
    path.reduce<string>(
      (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
      '',
    ) || null
  );
}

/** Turn the first zod issue into the envelope's error, naming the field in `param` (e.g. signers[0].email). */
export function validationError(error: z.ZodError, input: unknown): ApiError {
  const issue = error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const param = paramName([...issue.path, ...(keys.length > 0 ? [keys[0]!] : [])]);
  const shown = param ?? 'body';
  if (issue.code === 'unrecognized_keys') {
    return new ApiError('parameter_unknown', param, {}, {}, { en: `Unknown parameter: ${shown}.`, ar: `حقل غير معروف: ${shown}.` });
  }
  const missing =
    (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') &&
    valueAt(input, issue.path) === undefined;
  if (missing) {
    return new ApiError(
      'parameter_missing',
      param,
      {},
      {},
      { en: `Missing required parameter: ${shown}.`, ar: `الحقل المطلوب مفقود: ${shown}.` },
    );
  }
  return new ApiError(
    'parameter_invalid',
    param,
    {},
    {},
    {
      en: `Invalid value for ${shown}: ${issue.message}.`,
      ar: `قيمة غير صالحة للحقل ${shown}.`,
    },
  );
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

/**
 * Every body and query the API and the signing page read goes through here: first the text rule
 * for every string in it (domain/inputText.ts: no control characters), then its zod schema.
 */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): T {
  const bad = forbiddenCharacterAt(input);
  if (bad) throw controlCharacterError(bad);
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(r.error, input);
  return r.data;
}

function controlCharacterError(bad: ForbiddenAt): ApiError {
  const param = paramName(bad.path);
  const shown = param ?? 'body';
  const en = bad.inKey
    ? `A key in ${shown} contains a control character (only tab and line breaks are allowed in text).`
    : `Invalid value for ${shown}: it contains a control character (only tab and line breaks are allowed in text).`;
  const ar = bad.inKey
    ? `أحد المفاتيح في ${shown} يحتوي على محرف تحكم (لا يُسمح في النص إلا بالجدولة وفواصل الأسطر).`
    : `قيمة غير صالحة للحقل ${shown}: تحتوي على محرف تحكم (لا يُسمح في النص إلا بالجدولة وفواصل الأسطر).`;
  return new ApiError('parameter_invalid', param, {}, {}, { en, ar });
}

export function mountRoutes(router: Router, ctx: AppContext, routes: readonly AnyRoute[]): void {
  for (const route of routes) {
    router[route.method](route.path, async (req: Request, res: Response, _next: NextFunction) => {
      if (route.access === 'secret') requireSecretKey(req);
      const body = route.body ? parseWith(route.body, req.body ?? {}) : undefined;
      const query = route.query ? parseWith(route.query, req.query) : undefined;
      await route.handle(ctx, { req, res, body, query, params: req.params as Record<string, string> });
    });
  }
}

/** Express-style path → a matcher, for telling "wrong method" (405) from "unknown path" (404). */
export function pathMatcher(path: string): RegExp {
  const pattern = path.replace(/:[A-Za-z_]+/g, '[^/]+');
  return new RegExp(`^${pattern}/?$`);
}
