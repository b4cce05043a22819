/** The options `tawqi listen` and `tawqi trigger` share: which server, and the secret key to use on it. */
import { Option, type Command } from 'commander';
import { ApiClient } from './client.js';

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

/** The client for the flags, after checking the key is a secret key and the server accepts it. */
export async function connect(flags: RemoteFlags): Promise<{ api: ApiClient; info: ServiceInfo }> {
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
  const api = new ApiClient(base.toString(), key);
  const { body } = await api.get<ServiceInfo>('/');
  return { api, info: body };
}
