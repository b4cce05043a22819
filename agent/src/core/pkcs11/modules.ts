/**
 * PKCS#11 module discovery: the modules named in the agent's config first, then the built-in list of
 * known vendor modules for this OS (each path that exists on this machine). The list is documented in
 * agent/README.md ("PKCS#11 modules"); to add a vendor, add an entry to KNOWN_MODULES (or, without a
 * new build, add the path under "modules" in the agent's config.json).
 */
import { existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Platform = 'linux' | 'darwin' | 'win32';

/**
 * How a module notices tokens plugged in or removed:
 * - 'slot-list': C_GetSlotList(tokenPresent) reflects insertion and removal (PC/SC based middleware:
 *   OpenSC and the vendor modules);
 * - 'reinitialize': the module only reads its tokens at C_Initialize (SoftHSM2's token directory), so
 *   the agent finalizes and initializes it again at each poll while no session is open.
 */
export type Rescan = 'slot-list' | 'reinitialize';

export interface KnownModule {
  id: string;
  vendor: string;
  /** Tokens and middleware it serves, for the README and `tawqi-agent tokens`. */
  serves: string;
  rescan: Rescan;
  paths: Record<Platform, readonly string[]>;
}

/** The built-in list, in the order modules are loaded. */
export const KNOWN_MODULES: readonly KnownModule[] = [
  {
    id: 'safenet',
    vendor: 'SafeNet / Thales',
    serves: 'SafeNet eToken 5110/5300 (SafeNet Authentication Client)',
    rescan: 'slot-list',
    paths: {
      linux: ['/usr/lib/libeTPkcs11.so', '/usr/lib64/libeTPkcs11.so', '/usr/lib/pkcs11/libeTPkcs11.so', '/usr/lib64/pkcs11/libeTPkcs11.so'],
      darwin: ['/usr/local/lib/libeTPkcs11.dylib', '/Library/Frameworks/eToken.framework/Versions/Current/libeToken.dylib'],
      win32: ['%SystemRoot%\\System32\\eTPKCS11.dll'],
    },
  },
  {
    id: 'idprime',
    vendor: 'Gemalto / Thales',
    serves: 'IDPrime smart cards and tokens (IDPrime PKCS#11, SafeNet Authentication Client 10+)',
    rescan: 'slot-list',
    paths: {
      linux: ['/usr/lib/libIDPrimePKCS11.so', '/usr/lib64/libIDPrimePKCS11.so', '/usr/lib/pkcs11/libIDPrimePKCS11.so'],
      darwin: ['/usr/local/lib/libIDPrimePKCS11.dylib', '/Library/Frameworks/eToken.framework/Versions/A/libIDPrimePKCS11.dylib'],
      win32: ['%SystemRoot%\\System32\\IDPrimePKCS11.dll'],
    },
  },
  {
    id: 'epass2003',
    vendor: 'Feitian',
    serves: 'ePass2003 (Feitian middleware; OpenSC also drives it)',
    rescan: 'slot-list',
    paths: {
      linux: ['/usr/lib/libcastle.so.1.0.0', '/usr/local/lib/libcastle.so.1.0.0'],
      darwin: ['/usr/local/lib/libcastle.1.0.0.dylib'],
      win32: ['%SystemRoot%\\System32\\eps2003csp11.dll', '%SystemRoot%\\System32\\eps2003csp11v2.dll'],
    },
  },
  {
    id: 'bit4id',
    vendor: 'Bit4id',
    serves: 'Bit4id digital DNA keys and smart cards (bit4id middleware)',
    rescan: 'slot-list',
    paths: {
      linux: ['/usr/lib/libbit4xpki.so', '/usr/lib/bit4id/libbit4xpki.so', '/usr/lib/libbit4ipki.so', '/usr/lib64/libbit4ipki.so'],
      darwin: ['/Library/bit4id/pkcs11/libbit4xpki.dylib', '/usr/local/lib/libbit4xpki.dylib'],
      win32: ['%SystemRoot%\\System32\\bit4xpki.dll', '%SystemRoot%\\System32\\bit4ipki.dll'],
    },
  },
  {
    id: 'opensc',
    vendor: 'OpenSC',
    serves: 'PIV, CardOS, ePass2003, IDPrime (read), national eID cards and many more over PC/SC',
    rescan: 'slot-list',
    paths: {
      linux: [
        '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so',
        '/usr/lib/aarch64-linux-gnu/opensc-pkcs11.so',
        '/usr/lib64/opensc-pkcs11.so',
        '/usr/lib/opensc-pkcs11.so',
      ],
      darwin: ['/Library/OpenSC/lib/opensc-pkcs11.so', '/opt/homebrew/lib/opensc-pkcs11.so', '/usr/local/lib/opensc-pkcs11.so'],
      win32: ['%ProgramFiles%\\OpenSC Project\\OpenSC\\pkcs11\\opensc-pkcs11.dll', '%SystemRoot%\\System32\\opensc-pkcs11.dll'],
    },
  },
  {
    id: 'softhsm2',
    vendor: 'SoftHSM2 (OpenDNSSEC)',
    serves: 'software tokens for development and tests',
    rescan: 'reinitialize',
    paths: {
      linux: [
        '/usr/lib/softhsm/libsofthsm2.so',
        '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
        '/usr/lib64/pkcs11/libsofthsm2.so',
        '/usr/local/lib/softhsm/libsofthsm2.so',
      ],
      darwin: ['/opt/homebrew/lib/softhsm/libsofthsm2.so', '/usr/local/lib/softhsm/libsofthsm2.so'],
      win32: ['C:\\SoftHSM2\\lib\\softhsm2-x64.dll'],
    },
  },
];

/** A module entry of the agent's config: a path, or a path with an id and a rescan mode. */
export interface ConfiguredModule {
  path: string;
  id?: string | undefined;
  rescan?: Rescan | undefined;
}

/** A module the agent will load. */
export interface ModuleSpec {
  id: string;
  path: string;
  vendor: string;
  rescan: Rescan;
  source: 'config' | 'known';
}

export interface DiscoveryResult {
  modules: ModuleSpec[];
  /** Configured paths that do not exist (known paths that do not exist are just not installed). */
  missing: string[];
}

export interface DiscoveryOptions {
  configured: readonly (string | ConfiguredModule)[];
  /** Look for the built-in vendor list (default true). */
  known?: boolean;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  home?: string;
  exists?: (p: string) => boolean;
  realpath?: (p: string) => string;
}

/** `%NAME%` (Windows) and a leading `~` expanded. */
export function expandPath(p: string, env: NodeJS.ProcessEnv, home: string): string {
  let out = p.replace(/%([A-Za-z_][A-Za-z0-9_()]*)%/g, (whole, name: string) => {
    const key = Object.keys(env).find((k) => k.toLowerCase() === name.toLowerCase());
    return key
      ? (env[key] ?? whole)
      : name.toLowerCase() === 'systemroot'
        ? 'C:\\Windows'
        : name.toLowerCase() === 'programfiles'
          ? 'C:\\Program Files'
          : whole;
  });
  if (out === '~' || out.startsWith('~/')) out = home + out.slice(1);
  return out;
}

function defaultRescan(p: string): Rescan {
  return /softhsm/i.test(path.basename(p)) ? 'reinitialize' : 'slot-list';
}

export function discoverModules(options: DiscoveryOptions): DiscoveryResult {
  const platform = (options.platform ?? process.platform) as Platform;
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const exists = options.exists ?? existsSync;
  const realpath =
    options.realpath ??
    ((p: string) => {
      try {
        return realpathSync(p);
      } catch {
        return p;
      }
    });

  const modules: ModuleSpec[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const ids = new Set<string>();
  const uniqueId = (wanted: string): string => {
    let id = wanted;
    for (let n = 2; ids.has(id); n++) id = `${wanted}-${n}`;
    ids.add(id);
    return id;
  };
  const add = (spec: Omit<ModuleSpec, 'id'> & { id: string }): void => {
    const real = realpath(spec.path);
    if (seen.has(real)) return;
    seen.add(real);
    modules.push({ ...spec, id: uniqueId(spec.id) });
  };

  for (const entry of options.configured) {
    const item: ConfiguredModule = typeof entry === 'string' ? { path: entry } : entry;
    const p = expandPath(item.path, env, home);
    if (!exists(p)) {
      missing.push(p);
      continue;
    }
    const known = KNOWN_MODULES.find((k) => (k.paths[platform] ?? []).some((kp) => expandPath(kp, env, home) === p));
    add({
      id:
        item.id ??
        known?.id ??
        path
          .basename(p)
          .replace(/\.(so(\.[0-9.]+)?|dylib|dll)$/i, '')
          .replace(/^lib/, ''),
      path: p,
      vendor: known?.vendor ?? 'configured',
      rescan: item.rescan ?? known?.rescan ?? defaultRescan(p),
      source: 'config',
    });
  }

  if (options.known ?? true) {
    for (const known of KNOWN_MODULES) {
      for (const candidate of known.paths[platform] ?? []) {
        const p = expandPath(candidate, env, home);
        if (!exists(p)) continue;
        add({ id: known.id, path: p, vendor: known.vendor, rescan: known.rescan, source: 'known' });
        break; // one path per vendor module
      }
    }
  }
  return { modules, missing };
}
