import { z } from 'zod';
import { normaliseIpEntry } from './domain/keys.js';

/**
 * Every setting of the server, read from the environment once at start. Each has a safe default so
 * `npm start` works with none; a bad value stops the start with a message naming the variable.
 */
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const csv = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  TAWQI_PUBLIC_URL: z.url().optional().describe('Public base address, e.g. https://sign.example.com (defaults to the listen address)'),
  TAWQI_TLS_CERT: z.string().optional().describe('PEM certificate file: serve HTTPS (TLS 1.2 minimum)'),
  TAWQI_TLS_KEY: z.string().optional().describe('PEM private key file for TAWQI_TLS_CERT'),
  TAWQI_TRUSTED_PROXIES: csv
    .refine((list) => list.every((e) => normaliseIpEntry(e) !== null), 'each entry must be an IPv4/IPv6 address or CIDR range')
    .default([])
    .describe('Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For/-Proto are believed'),
  TAWQI_ALLOW_INSECURE_HTTP: bool.default(false).describe('Allow plain HTTP on a non-loopback address (not for production)'),
  TAWQI_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TAWQI_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(1024 * 1024),
  TAWQI_RATE_LIMIT: z.coerce.number().int().min(1).default(100).describe('Requests per window per account'),
  TAWQI_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(10),
  TAWQI_IP_RATE_LIMIT: z.coerce.number().int().min(1).default(300).describe('Requests per window per client address before authentication'),
  TAWQI_PUBLISHABLE_HOURLY_QUOTA: z.coerce.number().int().min(1).default(5),
  TAWQI_PUBLISHABLE_DAILY_CAP: z.coerce.number().int().min(1).default(200).describe('Default daily cap of a publishable key'),
  TAWQI_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('EGP'),
  TAWQI_DEFAULT_VERSION: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).default('2026-07-01'),
  TAWQI_DOCS_URL: z.string().default('/api/v1/openapi.json'),
  TAWQI_CONSOLE_URL: z.string().default('/console'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.keys(configSchema.shape);
  const input: Record<string, string> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') input[name] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid setting:\n${lines.join('\n')}`);
  }
  if (Boolean(parsed.data.TAWQI_TLS_CERT) !== Boolean(parsed.data.TAWQI_TLS_KEY)) {
    throw new ConfigError('Invalid setting:\n  TAWQI_TLS_CERT and TAWQI_TLS_KEY must be set together');
  }
  return parsed.data;
}
