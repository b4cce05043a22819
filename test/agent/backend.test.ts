/**
 * The token backend's rules with a scripted PKCS#11 module (what SoftHSM2 cannot show): PIN-pad
 * login, FINAL_TRY / LOCKED states, a token offering only CKM_RSA_PKCS, CKA_ALWAYS_AUTHENTICATE keys,
 * sessions closed and PIN bytes wiped on every path.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { TokenBackend, type Pkcs11Api } from '../../agent/src/core/pkcs11/backend.js';
import * as C from '../../agent/src/core/pkcs11/constants.js';
import { sha256DigestInfo } from '../../agent/src/core/pkcs11/mechanisms.js';
import type { ModuleSpec } from '../../agent/src/core/pkcs11/modules.js';

class Pkcs11Failure extends Error {
  constructor(readonly code: number) {
    super(`CKR_${code.toString(16)}`);
  }
}

interface FakeOptions {
  flags?: number;
  mechanisms?: number[];
  pin?: string;
  alwaysAuthenticate?: boolean;
  /** What a login with an empty PIN does (a PIN pad): 'ok' or a CKR code. */
  pinPad?: 'ok' | number;
  /** Flags after a wrong PIN. */
  flagsAfterWrongPin?: number;
}

function fakeModule(options: FakeOptions = {}) {
  const calls: string[] = [];
  const state = {
    flags: options.flags ?? C.CKF_TOKEN_INITIALIZED | C.CKF_LOGIN_REQUIRED,
    openSessions: 0,
    loggedIn: false,
    signed: null as Buffer | null,
    mechanism: 0,
  };
  const slot = Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]);
  const key = Buffer.from([9]);
  const api: Pkcs11Api = {
    load: (p) => void calls.push(`load ${p}`),
    C_Initialize: () => void calls.push('init'),
    C_Finalize: () => void calls.push('finalize'),
    C_GetSlotList: () => [slot],
    C_GetTokenInfo: () => ({
      label: 'Fake'.padEnd(32),
      manufacturerID: 'Vendor'.padEnd(32),
      model: 'M'.padEnd(16),
      serialNumber: '42'.padEnd(16),
      flags: state.flags,
    }),
    C_GetMechanismList: () => options.mechanisms ?? [C.CKM_RSA_PKCS, C.CKM_SHA256_RSA_PKCS, C.CKM_ECDSA],
    C_OpenSession: () => {
      state.openSessions++;
      calls.push('open');
      return Buffer.from([7]);
    },
    C_CloseSession: () => {
      state.openSessions--;
      calls.push('close');
    },
    C_Login: (_s, userType, pin) => {
      calls.push(`login ${userType} ${pin === '' ? '(pad)' : '(pin)'}`);
      if (pin === '') {
        if (options.pinPad === undefined) throw new Pkcs11Failure(C.CKR_PIN_INCORRECT);
        if (options.pinPad !== 'ok') throw new Pkcs11Failure(options.pinPad);
      } else if (pin !== (options.pin ?? '1234')) {
        state.flags = options.flagsAfterWrongPin ?? state.flags | C.CKF_USER_PIN_COUNT_LOW;
        throw new Pkcs11Failure(C.CKR_PIN_INCORRECT);
      }
      if (userType === C.CKU_USER) state.loggedIn = true;
    },
    C_Logout: () => {
      calls.push('logout');
      state.loggedIn = false;
    },
    C_FindObjectsInit: () => {},
    C_FindObjects: (() => {
      let done = false;
      return () => {
        done = !done;
        return done ? [key] : [];
      };
    })(),
    C_FindObjectsFinal: () => {},
    C_GetAttributeValue: (_s, _o, template) =>
      template.map((t) => ({
        type: t.type,
        value: t.type === C.CKA_ALWAYS_AUTHENTICATE ? Buffer.from([options.alwaysAuthenticate ? 1 : 0]) : Buffer.from([1]),
      })),
    C_SignInit: (_s, mechanism) => {
      calls.push(`signinit ${mechanism.mechanism}`);
      state.mechanism = mechanism.mechanism;
    },
    C_Sign: (_s, data) => {
      calls.push('sign');
      state.signed = Buffer.from(data);
      return Buffer.from('signature');
    },
  };
  return { api, calls, state };
}

const SPEC: ModuleSpec = { id: 'fake', path: '/fake.so', vendor: 'test', rescan: 'slot-list', source: 'config' };
const backendWith = (api: Pkcs11Api) => {
  const backend = new TokenBackend(() => api);
  backend.init([SPEC]);
  return backend;
};
const slotKey = 'fake:0100000000000000';
const data = Buffer.from('signed attributes');
const pinBytes = (s: string) => new TextEncoder().encode(s);

describe('token backend (scripted module)', () => {
  test('scan lists the token with trimmed labels and its flags', () => {
    const { api } = fakeModule();
    const scan = backendWith(api).scan(false);
    assert.equal(scan.tokens.length, 1);
    assert.equal(scan.tokens[0]?.slot, slotKey);
    assert.equal(scan.tokens[0]?.label, 'Fake');
    assert.equal(scan.modules[0]?.loaded, true);
  });

  test('RSA with CKM_SHA256_RSA_PKCS: the token gets the message; logout and close always follow', () => {
    const { api, calls, state } = fakeModule();
    const pin = pinBytes('1234');
    const outcome = backendWith(api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin });
    assert.deepEqual(outcome, { ok: true, signature: new Uint8Array(Buffer.from('signature')), mechanism: 'CKM_SHA256_RSA_PKCS' });
    assert.equal(state.mechanism, C.CKM_SHA256_RSA_PKCS);
    assert.deepEqual(state.signed, data);
    assert.deepEqual(pin, new Uint8Array(4), 'PIN bytes wiped');
    assert.equal(state.openSessions, 0);
    assert.deepEqual(calls.slice(-6), ['open', 'login 1 (pin)', `signinit ${C.CKM_SHA256_RSA_PKCS}`, 'sign', 'logout', 'close']);
  });

  test('a token with only CKM_RSA_PKCS gets the SHA-256 DigestInfo we build', () => {
    const { api, state } = fakeModule({ mechanisms: [C.CKM_RSA_PKCS] });
    const outcome = backendWith(api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin: pinBytes('1234') });
    assert.equal(outcome.ok && outcome.mechanism, 'CKM_RSA_PKCS');
    assert.deepEqual(new Uint8Array(state.signed ?? []), sha256DigestInfo(createHash('sha256').update(data).digest()));
  });

  test('ECDSA gets the SHA-256 digest with CKM_ECDSA', () => {
    const { api, state } = fakeModule();
    backendWith(api).sign({ slot: slotKey, keyId: '02', keyType: 'ec', data, pin: pinBytes('1234') });
    assert.equal(state.mechanism, C.CKM_ECDSA);
    assert.deepEqual(state.signed, createHash('sha256').update(data).digest());
  });

  test('no usable mechanism: refused before any session', () => {
    const { api, state } = fakeModule({ mechanisms: [C.CKM_RSA_PKCS] });
    const outcome = backendWith(api).sign({ slot: slotKey, keyId: '02', keyType: 'ec', data, pin: pinBytes('1234') });
    assert.equal(!outcome.ok && outcome.code, 'mechanism_unsupported');
    assert.equal(state.openSessions, 0);
  });

  test('a wrong PIN reports pin_incorrect with the flags after the attempt (COUNT_LOW, FINAL_TRY)', () => {
    const { api, state } = fakeModule({
      flagsAfterWrongPin: C.CKF_TOKEN_INITIALIZED | C.CKF_USER_PIN_COUNT_LOW | C.CKF_USER_PIN_FINAL_TRY,
    });
    const pin = pinBytes('0000');
    const outcome = backendWith(api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin });
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.code, 'pin_incorrect');
    assert.equal(!outcome.ok && outcome.flags !== null && (outcome.flags & C.CKF_USER_PIN_FINAL_TRY) !== 0, true);
    assert.deepEqual(pin, new Uint8Array(4), 'PIN bytes wiped after a failure too');
    assert.equal(state.openSessions, 0);
  });

  test('a locked PIN is refused without trying to log in', () => {
    const { api, calls } = fakeModule({ flags: C.CKF_TOKEN_INITIALIZED | C.CKF_USER_PIN_LOCKED });
    const outcome = backendWith(api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin: pinBytes('1234') });
    assert.equal(!outcome.ok && outcome.code, 'pin_locked');
    assert.equal(
      calls.some((c) => c.startsWith('login')),
      false,
    );
  });

  test('PIN pad: login with an empty PIN lets the reader collect it; canceling on the pad is user_canceled', () => {
    const pad = fakeModule({ flags: C.CKF_TOKEN_INITIALIZED | C.CKF_PROTECTED_AUTHENTICATION_PATH, pinPad: 'ok' });
    const ok = backendWith(pad.api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin: null });
    assert.equal(ok.ok, true);
    assert.ok(pad.calls.includes('login 1 (pad)'));
    const canceled = fakeModule({ flags: C.CKF_TOKEN_INITIALIZED | C.CKF_PROTECTED_AUTHENTICATION_PATH, pinPad: C.CKR_FUNCTION_CANCELED });
    const outcome = backendWith(canceled.api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin: null });
    assert.equal(!outcome.ok && outcome.code, 'user_canceled');
    assert.equal(canceled.state.openSessions, 0);
  });

  test('CKA_ALWAYS_AUTHENTICATE keys get a context-specific login after C_SignInit', () => {
    const { api, calls } = fakeModule({ alwaysAuthenticate: true });
    const outcome = backendWith(api).sign({ slot: slotKey, keyId: '01', keyType: 'rsa', data, pin: pinBytes('1234') });
    assert.equal(outcome.ok, true);
    const i = calls.indexOf(`signinit ${C.CKM_SHA256_RSA_PKCS}`);
    assert.equal(calls[i + 1], `login ${C.CKU_CONTEXT_SPECIFIC} (pin)`);
  });

  test('a token that is gone: no_token', () => {
    const { api } = fakeModule();
    const outcome = backendWith(api).sign({ slot: 'fake:ff', keyId: '01', keyType: 'rsa', data, pin: pinBytes('1234') });
    assert.equal(!outcome.ok && outcome.code, 'no_token');
  });

  test('a module that fails to load is reported, not fatal', () => {
    const backend = new TokenBackend(() => ({
      ...fakeModule().api,
      load: () => {
        throw new Error('cannot open shared object');
      },
    }));
    const status = backend.init([SPEC]);
    assert.equal(status[0]?.loaded, false);
    assert.match(status[0]?.error ?? '', /shared object/);
    assert.deepEqual(backend.scan(true).tokens, []);
  });
});
