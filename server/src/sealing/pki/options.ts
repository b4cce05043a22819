import type { Config } from '../../config.js';
import type { PkiOptions } from './pki.js';

/** The PKI settings from the server configuration (TAWQI_SEAL_P12, TAWQI_SEAL_P12_PASSWORD, TAWQI_TSA_URL). */
export function pkiOptionsFromConfig(config: Config, log?: PkiOptions['log']): PkiOptions {
  return {
    ...(config.TAWQI_SEAL_P12 ? { sealP12: { file: config.TAWQI_SEAL_P12, password: config.TAWQI_SEAL_P12_PASSWORD ?? '' } } : {}),
    ...(config.TAWQI_TSA_URL ? { tsaUrl: config.TAWQI_TSA_URL } : {}),
    ...(log ? { log } : {}),
  };
}
