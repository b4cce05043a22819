/** The options `tawqi listen` and `tawqi trigger` share: which server, and the secret key to use on it. */
import { Tawqi, TawqiError } from '@tawqi/node';
import { Option, type Command } from 'commander';

export interface RemoteFlags {
  apiKey?: string;
  apiBase: string;
}

/** The server's own default address, so `npm start` and `tawqi listen` meet with no settings. */
function defaultBase(): string {
  const port = /^\d+$/.test(process.env.PORT ?? '') ? process.env.PORT : '8080';
  return `http://127.0.0.1:${port}`;
}

export function remoteOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--api-key <key>', 'a secret key, sk_… or sk_test_…').env('TAWQI_SECRET_KEY'))
    .addOption(new Option('--api-base <url>', 'the server').env('TAWQI_API_BASE').default(defaultBase(), 'http://127.0.0.1:$PORT (8080)'));
}

export interface ServiceInfo {
  livemode: boolean;
  account: { id: string; name: string };
}

/** How long one API call may take before it counts as no answer. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * The SDK client for the flags, after checking the key is a secret key and the server accepts it.
 * English errors like the rest of the CLI; no Svc-Version, so the server answers in the account's
 * pinned version — the one its real webhook deliveries carry, which `listen` reproduces.
 */
export async function connect(flags: RemoteFlags, retries: number): Promise<{ tawqi: Tawqi; info: ServiceInfo }> {
  const key = flags.apiKey?.trim();
  if (!key) throw new Error('A secret key is needed: --api-key sk_test_… or TAWQI_SECRET_KEY.');
  if (!key.startsWith('sk_'))
    throw new Error('Use a secret key (sk_… or sk_test_…): a publishable key cannot read events or create requests.');
  let base: URL;
  try {
    base = new URL(flags.apiBase);
  } catch {
    throw new Error(`--api-base is not an address: ${flags.apiBase}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('--api-base must be an http or https address.');
  const tawqi = new Tawqi(key, {
    baseUrl: base.toString(),
    locale: 'en',
    apiVersion: null,
    timeoutMs: CALL_TIMEOUT_MS,
    maxNetworkRetries: retries,
  });
  try {
    return { tawqi, info: await tawqi.service.retrieve() };
  } catch (err) {
    throw new Error(describeFailure(err));
  }
}

/** An SDK failure as one line: "the server answered 429 too_many_requests: …" or the network cause. */
export function describeFailure(err: unknown): string {
  if (err instanceof TawqiError && err.statusCode !== null) {
    return `the server answered ${err.statusCode} ${err.code ?? ''}: ${err.message}${err.param ? ` (${err.param})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}
