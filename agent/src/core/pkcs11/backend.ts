/**
 * Everything that calls PKCS#11. It runs inside the token worker (worker.ts), never on the main
 * thread: pkcs11js calls are synchronous and a PIN-pad login blocks until the user has typed on the
 * reader. The PKCS#11 module object is injected (Pkcs11Api, the subset of pkcs11js.PKCS11 we use),
 * so the rules here — login, PIN state, mechanism choice, session hygiene — are unit-tested with a
 * fake module as well as with SoftHSM2.
 */
import { createHash } from 'node:crypto';
import {
  CKA_ALWAYS_AUTHENTICATE,
  CKA_CERTIFICATE_TYPE,
  CKA_CLASS,
  CKA_ID,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_VALUE,
  CKC_X_509,
  CKF_SERIAL_SESSION,
  CKF_TOKEN_INITIALIZED,
  CKF_USER_PIN_LOCKED,
  CKK_EC,
  CKK_RSA,
  CKO_CERTIFICATE,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
  CKR_CRYPTOKI_ALREADY_INITIALIZED,
  CKR_DEVICE_REMOVED,
  CKR_FUNCTION_CANCELED,
  CKR_PIN_EXPIRED,
  CKR_PIN_INCORRECT,
  CKR_PIN_INVALID,
  CKR_PIN_LEN_RANGE,
  CKR_PIN_LOCKED,
  CKR_TOKEN_NOT_PRESENT,
  CKR_USER_ALREADY_LOGGED_IN,
  CKU_CONTEXT_SPECIFIC,
  CKU_USER,
} from './constants.js';
import { chooseMechanism, sha256DigestInfo, type KeyType, type MechanismChoice } from './mechanisms.js';
import type { ModuleSpec } from './modules.js';

type Handle = Buffer;
interface Attr {
  type: number;
  value?: number | boolean | string | Buffer;
}

/** The part of pkcs11js.PKCS11 the agent uses. */
export interface Pkcs11Api {
  load(path: string): void;
  C_Initialize(): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent?: boolean): Handle[];
  C_GetTokenInfo(slot: Handle): { label: string; manufacturerID: string; model: string; serialNumber: string; flags: number };
  C_GetMechanismList(slot: Handle): number[];
  C_OpenSession(slot: Handle, flags: number): Handle;
  C_CloseSession(session: Handle): void;
  C_Login(session: Handle, userType: number, pin?: string): void;
  C_Logout(session: Handle): void;
  C_FindObjectsInit(session: Handle, template: Attr[]): void;
  C_FindObjects(session: Handle, maxObjectCount: number): Handle[];
  C_FindObjectsFinal(session: Handle): void;
  C_GetAttributeValue(session: Handle, object: Handle, template: Attr[]): { type: number; value?: unknown }[];
  C_SignInit(session: Handle, mechanism: { mechanism: number }, key: Handle): void;
  C_Sign(session: Handle, data: Buffer, out: Buffer): Buffer;
}

export interface RawCertificate {
  /** CKA_ID, hex ('' when absent). */
  id: string;
  label: string;
  der: Uint8Array;
}

export interface RawKey {
  id: string;
  class: 'public' | 'private';
  keyType: KeyType | 'other';
}

export interface RawToken {
  /** `<module id>:<slot id hex>`: stable while the agent runs. */
  slot: string;
  module: string;
  modulePath: string;
  label: string;
  manufacturer: string;
  model: string;
  serial: string;
  flags: number;
  /** Present when the scan read objects. */
  certificates?: RawCertificate[];
  keys?: RawKey[];
}

export interface ModuleStatus {
  id: string;
  path: string;
  vendor: string;
  loaded: boolean;
  error?: string;
}

export interface ScanResult {
  tokens: RawToken[];
  modules: ModuleStatus[];
}

export interface SignJob {
  slot: string;
  /** CKA_ID of the certificate, hex: the private key with the same CKA_ID signs. */
  keyId: string;
  keyType: KeyType;
  /** The bytes to sign: the DER of the signed attributes (SET OF). */
  data: Uint8Array;
  /** The PIN as UTF-8 bytes, wiped here after use; null to log in on the reader's PIN pad. */
  pin: Uint8Array | null;
}

export type SignFailureCode =
  'no_token' | 'pin_incorrect' | 'pin_locked' | 'user_canceled' | 'key_not_found' | 'mechanism_unsupported' | 'token_error';

export type SignOutcome =
  | { ok: true; signature: Uint8Array; mechanism: MechanismChoice['name'] }
  | { ok: false; code: SignFailureCode; message: string; flags: number | null; rv?: number };

/** What a signature needs before its session (Pkcs11Backend.signSetup). */
interface SignSetup {
  found: { m: LoadedModule; slot: Handle };
  api: Pkcs11Api;
  flagsNow: () => number | null;
  before: number | null;
  choice: MechanismChoice;
}

interface LoadedModule {
  spec: ModuleSpec;
  api: Pkcs11Api | null;
  initialized: boolean;
  stale: boolean;
  error?: string;
}

const rvOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code > 0 ? code : undefined;
};
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const trimPad = (s: string): string => s.replace(/[\s\0]+$/, '');

function ulongOf(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (Buffer.isBuffer(value) && value.byteLength >= 4)
    return value.byteLength >= 8 ? Number(value.readBigUInt64LE(0)) : value.readUInt32LE(0);
  return null;
}
const bytesOf = (value: unknown): Buffer => (Buffer.isBuffer(value) ? value : Buffer.alloc(0));

/** How long certificates and key objects read from a token are reused while it stays plugged in. */
export const OBJECT_CACHE_MS = 30_000;

const identityOf = (t: RawToken): string => `${t.slot}|${t.serial}|${t.label}`;

export class TokenBackend {
  private modules: LoadedModule[] = [];
  private readonly objectCache = new Map<string, { at: number; objects: { certificates: RawCertificate[]; keys: RawKey[] } }>();

  constructor(private readonly createApi: () => Pkcs11Api) {}

  /** Loads and initializes each module; a module that fails is reported and skipped. */
  init(specs: readonly ModuleSpec[]): ModuleStatus[] {
    this.close();
    this.modules = specs.map((spec) => {
      const m: LoadedModule = { spec, api: null, initialized: false, stale: false };
      try {
        const api = this.createApi();
        api.load(spec.path);
        m.api = api;
        this.initialize(m);
      } catch (error) {
        m.error = messageOf(error);
      }
      return m;
    });
    return this.status();
  }

  status(): ModuleStatus[] {
    return this.modules.map((m) => ({
      id: m.spec.id,
      path: m.spec.path,
      vendor: m.spec.vendor,
      loaded: m.api !== null && m.initialized,
      ...(m.error ? { error: m.error } : {}),
    }));
  }

  private initialize(m: LoadedModule): void {
    if (!m.api) return;
    try {
      m.api.C_Initialize();
    } catch (error) {
      if (rvOf(error) !== CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
    }
    m.initialized = true;
    m.stale = false;
    delete m.error;
  }

  private reinitialize(m: LoadedModule): void {
    if (!m.api) return;
    if (m.initialized) {
      try {
        m.api.C_Finalize();
      } catch {
        // finalizing a module in a bad state: initialize anyway
      }
      m.initialized = false;
    }
    try {
      this.initialize(m);
    } catch (error) {
      m.error = messageOf(error);
    }
  }

  /**
   * Tokens present now; with `objects`, their certificates and the key objects visible without login.
   * A 'reinitialize' module is re-initialized by the polls (objects false), not by every listing.
   * Objects read from a token are reused for OBJECT_CACHE_MS while the same token stays in its slot
   * (smart cards take a long time to read); a token that leaves its slot is forgotten at once.
   */
  scan(objects: boolean): ScanResult {
    const tokens: RawToken[] = [];
    for (const m of this.modules) {
      if (!m.api) continue;
      if ((m.spec.rescan === 'reinitialize' && !objects) || m.stale || !m.initialized) this.reinitialize(m);
      if (!m.initialized) continue;
      try {
        tokens.push(...this.scanModule(m, objects));
      } catch (error) {
        m.stale = true; // a token pulled mid-call, a module that lost its reader: start afresh next time
        m.error = messageOf(error);
      }
    }
    const present = new Set(tokens.map(identityOf));
    for (const key of this.objectCache.keys()) if (!present.has(key)) this.objectCache.delete(key);
    return { tokens, modules: this.status() };
  }

  private scanModule(m: LoadedModule, objects: boolean): RawToken[] {
    const api = m.api as Pkcs11Api;
    const out: RawToken[] = [];
    for (const slot of api.C_GetSlotList(true)) {
      let info;
      try {
        info = api.C_GetTokenInfo(slot);
      } catch {
        continue; // removed between the two calls
      }
      if ((info.flags & CKF_TOKEN_INITIALIZED) === 0) continue;
      const token: RawToken = {
        slot: `${m.spec.id}:${slot.toString('hex')}`,
        module: m.spec.id,
        modulePath: m.spec.path,
        label: trimPad(info.label),
        manufacturer: trimPad(info.manufacturerID),
        model: trimPad(info.model),
        serial: trimPad(info.serialNumber),
        flags: info.flags,
      };
      if (objects) {
        const key = identityOf(token);
        const cached = this.objectCache.get(key);
        if (cached && Date.now() - cached.at < OBJECT_CACHE_MS) {
          Object.assign(token, cached.objects);
        } else {
          try {
            const read = this.readObjects(api, slot);
            this.objectCache.set(key, { at: Date.now(), objects: read });
            Object.assign(token, read);
          } catch {
            token.certificates = [];
            token.keys = [];
          }
        }
      }
      out.push(token);
    }
    return out;
  }

  private readObjects(api: Pkcs11Api, slot: Handle): { certificates: RawCertificate[]; keys: RawKey[] } {
    const session = api.C_OpenSession(slot, CKF_SERIAL_SESSION);
    try {
      const certificates: RawCertificate[] = [];
      for (const handle of findAll(api, session, [
        { type: CKA_CLASS, value: CKO_CERTIFICATE },
        { type: CKA_CERTIFICATE_TYPE, value: CKC_X_509 },
      ])) {
        const der = attribute(api, session, handle, CKA_VALUE);
        if (!der || der.byteLength === 0) continue;
        certificates.push({
          id: (attribute(api, session, handle, CKA_ID) ?? Buffer.alloc(0)).toString('hex'),
          label: (attribute(api, session, handle, CKA_LABEL) ?? Buffer.alloc(0)).toString('utf8'),
          der: new Uint8Array(der),
        });
      }
      const keys: RawKey[] = [];
      for (const [cls, name] of [
        [CKO_PUBLIC_KEY, 'public'],
        [CKO_PRIVATE_KEY, 'private'],
      ] as const) {
        for (const handle of findAll(api, session, [{ type: CKA_CLASS, value: cls }])) {
          const keyType = ulongOf(attribute(api, session, handle, CKA_KEY_TYPE));
          keys.push({
            id: (attribute(api, session, handle, CKA_ID) ?? Buffer.alloc(0)).toString('hex'),
            class: name,
            keyType: keyType === CKK_RSA ? 'rsa' : keyType === CKK_EC ? 'ec' : 'other',
          });
        }
      }
      return { certificates, keys };
    } finally {
      closeQuietly(api, session);
    }
  }

  private find(slotKey: string): { m: LoadedModule; slot: Handle } | null {
    const [moduleId, slotHex] = slotKey.split(':');
    const m = this.modules.find((x) => x.spec.id === moduleId && x.api && x.initialized);
    if (!m?.api || !slotHex) return null;
    try {
      const slot = m.api.C_GetSlotList(true).find((s) => s.toString('hex') === slotHex);
      return slot ? { m, slot } : null;
    } catch {
      m.stale = true;
      return null;
    }
  }

  /** The token's flags now (CK_TOKEN_INFO.flags), or null when it is gone. */
  tokenFlags(slotKey: string): number | null {
    const found = this.find(slotKey);
    if (!found) return null;
    try {
      return (found.m.api as Pkcs11Api).C_GetTokenInfo(found.slot).flags;
    } catch {
      return null;
    }
  }

  /**
   * Log in, sign `job.data` with the private key whose CKA_ID is `job.keyId`, log out and close the
   * session — every time, whatever happens. The PIN bytes are wiped before this returns.
   */
  sign(job: SignJob): SignOutcome {
    try {
      return this.signInner(job);
    } finally {
      job.pin?.fill(0);
    }
  }

  /** The token of a signature, its flags now and the mechanism for the key; or why it cannot start. */
  private signSetup(job: SignJob): SignSetup | Extract<SignOutcome, { ok: false }> {
    const found = this.find(job.slot);
    if (!found) return { ok: false, code: 'no_token', message: 'the token is not present', flags: null };
    const api = found.m.api as Pkcs11Api;
    const flagsNow = (): number | null => {
      try {
        return api.C_GetTokenInfo(found.slot).flags;
      } catch {
        return null;
      }
    };
    const before = flagsNow();
    if (before !== null && (before & CKF_USER_PIN_LOCKED) !== 0) {
      return { ok: false, code: 'pin_locked', message: 'the PIN is locked', flags: before };
    }

    let mechanisms: number[] | null;
    try {
      mechanisms = api.C_GetMechanismList(found.slot);
    } catch {
      mechanisms = null;
    }
    const choice = chooseMechanism(job.keyType, mechanisms);
    if (!choice) return { ok: false, code: 'mechanism_unsupported', message: `no usable ${job.keyType} mechanism`, flags: before };
    return { found, api, flagsNow, before, choice };
  }

  private signInner(job: SignJob): SignOutcome {
    const setup = this.signSetup(job);
    if ('ok' in setup) return setup;
    const { found, api, flagsNow, before, choice } = setup;
    let session: Handle;
    try {
      session = api.C_OpenSession(found.slot, CKF_SERIAL_SESSION);
    } catch (error) {
      found.m.stale = true;
      return { ok: false, code: 'token_error', message: messageOf(error), flags: before, ...rvField(error) };
    }
    let loggedIn = false;
    try {
      // pkcs11js takes the PIN as a string; it lives only for these calls. An empty PIN with a
      // protected authentication path lets the reader's PIN pad collect it.
      const pinText = job.pin ? Buffer.from(job.pin.buffer, job.pin.byteOffset, job.pin.byteLength).toString('utf8') : '';
      try {
        api.C_Login(session, CKU_USER, pinText);
        loggedIn = true;
      } catch (error) {
        const rv = rvOf(error);
        if (rv === CKR_USER_ALREADY_LOGGED_IN) {
          loggedIn = false; // someone else's login: do not log it out
        } else {
          return loginFailure(error, flagsNow());
        }
      }

      const keys = findAll(api, session, [
        { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
        { type: CKA_ID, value: Buffer.from(job.keyId, 'hex') },
      ]);
      const key = keys[0];
      if (!key) return { ok: false, code: 'key_not_found', message: 'no private key with this certificate’s CKA_ID', flags: flagsNow() };
      const alwaysAuthenticate = (attribute(api, session, key, CKA_ALWAYS_AUTHENTICATE)?.[0] ?? 0) !== 0;

      const input = mechanismInput(choice, job.data);
      api.C_SignInit(session, { mechanism: choice.mechanism }, key);
      if (alwaysAuthenticate) {
        // Qualified-signature keys often demand the PIN again for each signature (CKA_ALWAYS_AUTHENTICATE).
        try {
          api.C_Login(session, CKU_CONTEXT_SPECIFIC, pinText);
        } catch (error) {
          return loginFailure(error, flagsNow());
        }
      }
      const signature = api.C_Sign(session, input, Buffer.alloc(1024));
      return { ok: true, signature: new Uint8Array(signature), mechanism: choice.name };
    } catch (error) {
      const rv = rvOf(error);
      if (rv === CKR_DEVICE_REMOVED || rv === CKR_TOKEN_NOT_PRESENT) {
        found.m.stale = true;
        return { ok: false, code: 'no_token', message: 'the token was removed', flags: null, rv };
      }
      return { ok: false, code: 'token_error', message: messageOf(error), flags: flagsNow(), ...rvField(error) };
    } finally {
      if (loggedIn) {
        try {
          api.C_Logout(session);
        } catch {
          // the session goes anyway
        }
      }
      closeQuietly(api, session);
    }
  }

  /** Finalizes every module. */
  close(): void {
    this.objectCache.clear();
    for (const m of this.modules) {
      if (m.api && m.initialized) {
        try {
          m.api.C_Finalize();
        } catch {
          // closing anyway
        }
        m.initialized = false;
      }
    }
    this.modules = [];
  }
}

function rvField(error: unknown): { rv?: number } {
  const rv = rvOf(error);
  return rv === undefined ? {} : { rv };
}

function loginFailure(error: unknown, flags: number | null): SignOutcome {
  const rv = rvOf(error);
  if (rv === CKR_PIN_INCORRECT || rv === CKR_PIN_INVALID || rv === CKR_PIN_LEN_RANGE) {
    return { ok: false, code: 'pin_incorrect', message: 'the PIN is not correct', flags, rv };
  }
  if (rv === CKR_PIN_LOCKED || rv === CKR_PIN_EXPIRED) return { ok: false, code: 'pin_locked', message: 'the PIN is locked', flags, rv };
  if (rv === CKR_FUNCTION_CANCELED) return { ok: false, code: 'user_canceled', message: 'canceled on the PIN pad', flags, rv };
  return { ok: false, code: 'token_error', message: messageOf(error), flags, ...rvField(error) };
}

function mechanismInput(choice: MechanismChoice, data: Uint8Array): Buffer {
  if (choice.input === 'message') return Buffer.from(data);
  const digest = createHash('sha256').update(data).digest();
  return choice.input === 'digest' ? digest : Buffer.from(sha256DigestInfo(digest));
}

function findAll(api: Pkcs11Api, session: Handle, template: Attr[]): Handle[] {
  api.C_FindObjectsInit(session, template);
  try {
    const out: Handle[] = [];
    for (;;) {
      const batch = api.C_FindObjects(session, 64);
      if (batch.length === 0) break;
      out.push(...batch);
      if (out.length > 4096) break;
    }
    return out;
  } finally {
    api.C_FindObjectsFinal(session);
  }
}

function attribute(api: Pkcs11Api, session: Handle, object: Handle, type: number): Buffer | null {
  try {
    const [result] = api.C_GetAttributeValue(session, object, [{ type }]);
    return result?.value === undefined ? null : bytesOf(result.value);
  } catch {
    return null; // sensitive or absent attribute
  }
}

function closeQuietly(api: Pkcs11Api, session: Handle): void {
  try {
    api.C_CloseSession(session);
  } catch {
    // already gone with the token
  }
}
