import { z } from 'zod';

/** Response schemas for the OpenAPI document (the request schemas live with the domain rules). */
export const amountSchema = z.object({ amount: z.number(), currency: z.string() });

export const usageSchema = z.object({
  object: z.literal('usage'),
  livemode: z.boolean(),
  plan: z.object({
    name: z.string(),
    status: z.enum(['none', 'active', 'expired']),
    sends_per_year: z.number(),
    expires_at: z.number().nullable(),
  }),
  balance: z.object({ sends: z.number().int(), wallet: amountSchema }),
  prices: z.object({ send_overage: amountSchema, identity_verification: amountSchema }),
  currency: z.string(),
  company_verification: z.string(),
});

export const templateFieldOut = z.object({ key: z.string(), label: z.string(), type: z.string(), required: z.boolean() });

export const templateSchema = z.object({
  id: z.string(),
  object: z.literal('template'),
  title: z.string(),
  language: z.enum(['ar', 'en']),
  source: z.enum(['library', 'custom']),
  body: z.string(),
  fields: z.array(templateFieldOut),
  created_at: z.number().int(),
});

export const serviceInfoSchema = z.object({
  object: z.literal('service'),
  name: z.string(),
  api_version: z.string(),
  versions: z.array(z.string()),
  livemode: z.boolean(),
  account: z.object({ id: z.string(), name: z.string() }),
  docs: z.string(),
});

export const errorEnvelopeSchema = z.object({
  error: z
    .object({
      type: z.string(),
      code: z.string(),
      message: z.string(),
      param: z.string().nullable(),
      request_id: z.string(),
    })
    .catchall(z.unknown()),
});
