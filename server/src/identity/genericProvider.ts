import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import {
  CallbackRejected,
  PROVIDER_STATUSES,
  ProviderUnavailable,
  SIGNATURE_HEADER,
  verifySignature,
  type CreateVerificationInput,
  type CreatedVerification,
  type IdentityProvider,
  type ProviderResult,
} from './provider.js';

/**
 * The adapter for the documented generic provider protocol (see README.md beside this file):
 * `POST {base}/v1/verifications` with a bearer key opens a hosted verification; the provider
 * posts the result to our callback URL, signed `X-Provider-Signature: t=…,v1=…`.
 */
export interface GenericProviderOptions {
  baseUrl: string;
  apiKey: string;
  callbackSecret: string;
  clock: Clock;
  /** Milliseconds before a call to the provider is given up (default 10 s). */
  timeoutMs?: number;
}

const createdSchema = z.object({
  id: z.string().min(1).max(200),
  url: z.url({ protocol: /^https?$/ }).max(2000),
});

const callbackSchema = z.object({
  id: z.string().min(1).max(200),
  reference: z.string().max(200).optional(),
  status: z.enum(PROVIDER_STATUSES),
  document: z
    .object({
      name: z.string().trim().min(1).max(300),
      type: z.string().trim().min(1).max(50),
      number_last4: z.string().trim().max(64).nullish(),
    })
    .nullish(),
});

export class GenericProvider implements IdentityProvider {
  readonly name = 'generic';
  private readonly base: string;

  constructor(private readonly options: GenericProviderOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  async createVerification(input: CreateVerificationInput): Promise<CreatedVerification> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/v1/verifications`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          reference: input.reference,
          expected_name: input.expectedName,
          level: input.level,
          callback_url: input.callbackUrl,
          return_url: input.returnUrl,
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        redirect: 'error',
      });
    } catch (err) {
      throw new ProviderUnavailable(`identity provider unreachable: ${(err as Error).message}`);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new ProviderUnavailable(`identity provider answered ${res.status}`);
    let parsed: z.infer<typeof createdSchema>;
    try {
      parsed = createdSchema.parse(JSON.parse(text));
    } catch {
      throw new ProviderUnavailable('identity provider answered without {id, url}');
    }
    return { providerReference: parsed.id, url: parsed.url };
  }

  parseCallback(rawBody: Buffer, headers: IncomingHttpHeaders): ProviderResult {
    verifySignature(this.options.callbackSecret, headers[SIGNATURE_HEADER], rawBody, this.options.clock);
    let body: z.infer<typeof callbackSchema>;
    try {
      body = callbackSchema.parse(JSON.parse(rawBody.toString('utf8')));
    } catch {
      throw new CallbackRejected('body_invalid');
    }
    const result: ProviderResult = { providerReference: body.id, status: body.status };
    if (body.reference !== undefined) result.reference = body.reference;
    if (body.document) {
      const digits = body.document.number_last4?.replace(/\s+/g, '') ?? '';
      // Only the last four characters are ever kept, even if a provider sends more.
      result.document = { name: body.document.name, type: body.document.type, numberLast4: digits ? digits.slice(-4) : null };
    }
    return result;
  }
}
