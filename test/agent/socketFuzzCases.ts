/**
 * Generated messages for the agent's socket (fast-check) and what the agent must answer to each,
 * derived from the protocol's own zod schemas (@tawqi/shared agentProtocol.ts) rather than written
 * case by case: the agent is held to the contract the page and the server are built on.
 */
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  AGENT_CLOSE_CODES,
  AGENT_MAX_MESSAGE_BYTES,
  AGENT_PROTOCOL_VERSIONS,
  AgentRequestSchema,
  encodeSignTicketPayload,
  joinSignTicket,
  SignTicketPayloadSchema,
  type AgentErrorCode,
  type SignTicketPayload,
} from '@tawqi/shared';
import fc from 'fast-check';

/** Strings people and attackers type: bidi controls, combining marks, lone surrogates, NUL, BOM, escapes. */
export const UNICODE_EDGES = [
  '\u200f', // right-to-left mark
  '\u202e', // right-to-left override
  '\u2066', // left-to-right isolate
  'e\u0301\u0301\u0301', // stacked combining marks
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\u0000',
  '\ufeff',
  '\uffff',
  '\u001b[2J\u001b[H', // terminal: clear the screen
  '\r\nPIN for token', // a line that would look like the agent's own prompt
  'توقيع',
  '👩🏽‍💻',
  '%00',
  '"},{"type":"sign',
  '__proto__',
] as const;

export const weirdText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...UNICODE_EDGES),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...UNICODE_EDGES), fc.string({ unit: 'binary-ascii', maxLength: 10 }))
    .map((parts) => parts.join('')),
);

// ---------------------------------------------------------------------------------------------
// Tickets

/** Which certificate a ticket names: one of the SoftHSM token's, or one no token has. */
export type TicketCert = 'rsa' | 'ec' | 'ec384' | 'expired' | 'noUsage' | 'absent';

export type TicketKind =
  | 'valid' // signed by the pinned key, fresh, right origin
  | 'forged' // signed by another key
  | 'tampered' // payload changed after signing
  | 'random-signature'
  | 'malformed' // not base64url.base64url of JSON
  | 'expired'
  | 'future'
  | 'other-origin'
  | 'replayed' // used once already (then offered again)
  | 'cert-mismatch'; // the message names another certificate than the ticket

export interface TicketCase {
  kind: TicketKind;
  cert: TicketCert;
  /** Overrides of the payload fields, some breaking the ticket schema (then: ticket_invalid). */
  fields: Partial<Record<keyof SignTicketPayload, unknown>>;
  malformed: string;
}

const payloadFieldOverrides: fc.Arbitrary<TicketCase['fields']> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  { weight: 3, arbitrary: fc.record({ title: weirdText }, { requiredKeys: [] }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        request_id: weirdText,
        signer_id: weirdText,
        pages: fc.oneof(fc.integer({ min: -2, max: 100_001 }), fc.double(), fc.constant('2')),
        digest: fc.oneof(fc.string({ maxLength: 70 }), fc.constant('A'.repeat(64))),
        v: fc.constantFrom(0, 2, '1'),
        typ: fc.constantFrom('tawqi-sign-ticket ', 'jwt'),
        digest_alg: fc.constantFrom('sha-1', 'SHA-256'),
        preview_url: fc.oneof(weirdText, fc.constant('javascript:alert(1)')),
        jti: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('x'.repeat(129))),
        lifetime: fc.integer({ min: -10, max: 400 }),
      },
      { requiredKeys: [] },
    ) as fc.Arbitrary<TicketCase['fields']>,
  },
);

export const ticketCase: fc.Arbitrary<TicketCase> = fc.record({
  kind: fc.constantFrom<TicketKind>(
    'valid',
    'valid',
    'valid',
    'valid',
    'forged',
    'tampered',
    'random-signature',
    'malformed',
    'expired',
    'future',
    'other-origin',
    'replayed',
    'cert-mismatch',
  ),
  cert: fc.constantFrom<TicketCert>('rsa', 'ec', 'ec384', 'expired', 'noUsage', 'absent'),
  fields: payloadFieldOverrides,
  malformed: fc.oneof(
    fc.string({ unit: fc.constantFrom(...'ABCabc019-_.'.split('')), minLength: 3, maxLength: 200 }),
    fc.constant(`${'A'.repeat(4000)}.${'B'.repeat(4100)}`),
    weirdText,
  ),
});

export interface TicketMinter {
  origin: string;
  key: KeyObject;
  otherKey: KeyObject;
  certs: Record<Exclude<TicketCert, 'absent'>, string>;
  nowS: () => number;
}

/** The payload of a ticket case (before signing); `lifetime` is turned into exp − iat. */
export function ticketPayload(c: TicketCase, m: TicketMinter): Record<string, unknown> {
  const now = m.nowS();
  const { lifetime, ...fields } = c.fields as Record<string, unknown>;
  const iat = c.kind === 'expired' ? now - 1000 : c.kind === 'future' ? now + 600 : now;
  return {
    v: 1,
    typ: 'tawqi-sign-ticket',
    iss: c.kind === 'other-origin' ? 'https://sign.evil.example' : m.origin,
    request_id: 'sr_fuzz',
    signer_id: 'sgr_fuzz',
    title: 'Fuzzed contract',
    pages: 1,
    digest_alg: 'sha-256',
    digest: createHash('sha256').update(randomBytes(8)).digest('hex'),
    cert_sha256: c.cert === 'absent' ? createHash('sha256').update('no such certificate').digest('hex') : m.certs[c.cert],
    preview_url: `${m.origin}/preview/fuzz.png`,
    iat,
    exp: iat + (typeof lifetime === 'number' ? lifetime : 300),
    jti: randomBytes(16).toString('hex'),
    ...fields,
  };
}

/** The compact ticket for a case: signed with the pinned key, another key, or broken after signing. */
export function mintTicket(c: TicketCase, payload: Record<string, unknown>, m: TicketMinter): string {
  if (c.kind === 'malformed') return c.malformed;
  const signedPart = encodeSignTicketPayload(payload as SignTicketPayload);
  const signature =
    c.kind === 'random-signature'
      ? randomBytes(64)
      : sign(null, Buffer.from(signedPart, 'ascii'), c.kind === 'forged' ? m.otherKey : m.key);
  if (c.kind !== 'tampered') return joinSignTicket(signedPart, signature);
  const changed = encodeSignTicketPayload({ ...payload, pages: Number(payload.pages) + 1 } as SignTicketPayload);
  return joinSignTicket(changed, signature);
}

/**
 * What the agent must answer to a sign with this ticket, in the order its checks run
 * (agent/src/core/ticket.ts, then the certificate): a `signature` only for a valid, fresh, unused
 * ticket naming a certificate the token offers.
 */
export function expectedSign(c: TicketCase, payload: Record<string, unknown>): 'signature' | AgentErrorCode {
  if (['forged', 'tampered', 'random-signature', 'malformed'].includes(c.kind)) return 'ticket_invalid';
  if (!SignTicketPayloadSchema.safeParse(payload).success) return 'ticket_invalid';
  if (c.kind === 'other-origin') return 'ticket_origin_mismatch';
  if (c.kind === 'future') return 'ticket_invalid';
  if (c.kind === 'expired') return 'ticket_expired';
  if (c.kind === 'replayed') return 'ticket_replayed';
  if (c.kind === 'cert-mismatch') return 'certificate_mismatch';
  if (c.cert === 'absent') return 'certificate_not_found';
  if (c.cert === 'expired' || c.cert === 'noUsage') return 'certificate_not_usable';
  return 'signature';
}

// ---------------------------------------------------------------------------------------------
// Frames

export type FrameCase =
  | { kind: 'text'; text: string }
  | { kind: 'binary'; bytes: Uint8Array }
  | { kind: 'bad-utf8'; bytes: Uint8Array }
  | { kind: 'oversize'; extra: number; text: boolean }
  | { kind: 'sign'; ticket: TicketCase; id: string };

const requestId = fc.oneof(fc.string({ minLength: 1, maxLength: 64 }), weirdText, fc.constant(''), fc.constant('i'.repeat(65)));

/** A valid request of each type, to be broken by one mutation. */
const validRequest: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ type: fc.constant('hello'), id: requestId, versions: fc.array(fc.integer({ min: -1, max: 3 }), { maxLength: 17 }) }),
  fc.record({ type: fc.constant('list-certificates'), id: requestId }),
  fc.record({ type: fc.constant('cancel'), id: requestId, target: requestId }),
  fc.record({ type: fc.constant('sign'), id: requestId, ticket: fc.constant('eyJ2IjoxfQ.AAAA'), cert_sha256: fc.constant('0'.repeat(64)) }),
);

const mutation: fc.Arbitrary<(m: Record<string, unknown>) => Record<string, unknown>> = fc.oneof(
  fc.constant((m: Record<string, unknown>) => m),
  fc.constantFrom('type', 'id', 'versions', 'ticket', 'cert_sha256', 'target').map((key) => (m: Record<string, unknown>) => {
    const { [key]: _dropped, ...rest } = m;
    return rest;
  }),
  fc
    .tuple(fc.constantFrom('type', 'id', 'versions', 'ticket', 'cert_sha256', 'target'), fc.oneof(fc.jsonValue({ maxDepth: 3 }), weirdText))
    .map(([key, value]) => (m: Record<string, unknown>) => ({ ...m, [key]: value })),
  // Fields that are no part of the protocol: ignored, never obeyed (the PIN never comes over the socket).
  fc.tuple(fc.constantFrom('pin', '__proto__', 'constructor', 'origin', 'ticket'), fc.jsonValue({ maxDepth: 2 })).map(
    ([key, value]) =>
      (m: Record<string, unknown>) =>
        JSON.parse(JSON.stringify(m).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(value)},`)) as Record<string, unknown>,
  ),
);

const nested = fc.integer({ min: 1, max: 30_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);

export const frameCase: fc.Arbitrary<FrameCase> = fc.oneof(
  { weight: 2, arbitrary: weirdText.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => ({ kind: 'text' as const, text: JSON.stringify(v) ?? 'null' })) },
  { weight: 5, arbitrary: fc.tuple(validRequest, mutation).map(([m, f]) => ({ kind: 'text' as const, text: JSON.stringify(f(m)) })) },
  { weight: 1, arbitrary: nested.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'binary' as const, bytes })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.uint8Array({ maxLength: 32 }),
        fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]),
      )
      .map(([bytes, bad]) => ({ kind: 'bad-utf8' as const, bytes: Uint8Array.from([...bytes, ...bad]) })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('oversize' as const), extra: fc.integer({ min: 1, max: 200_000 }), text: fc.boolean() }),
  },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('sign' as const), ticket: ticketCase, id: fc.string({ minLength: 1, maxLength: 64 }) }),
  },
);

/** What comes back for one frame on a connection that said hello. */
export type Expected =
  | { answer: 'hello' | 'certificates' | 'signature' }
  | { answer: 'error'; code: AgentErrorCode; close?: number }
  | { answer: 'none' }
  | { answer: 'close'; close: number };

/** The answer to a text frame, from the same schema the agent parses it with. */
export function expectedForText(text: string): Expected {
  if (Buffer.byteLength(text) > AGENT_MAX_MESSAGE_BYTES) return { answer: 'close', close: 1009 };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { answer: 'error', code: 'bad_message' };
  }
  const parsed = AgentRequestSchema.safeParse(json);
  if (!parsed.success) return { answer: 'error', code: 'bad_message' };
  const msg = parsed.data;
  switch (msg.type) {
    case 'hello':
      return msg.versions.some((v) => (AGENT_PROTOCOL_VERSIONS as readonly number[]).includes(v))
        ? { answer: 'hello' }
        : { answer: 'error', code: 'unsupported_version', close: AGENT_CLOSE_CODES.unsupportedVersion };
    case 'list-certificates':
      return { answer: 'certificates' };
    case 'cancel':
      return { answer: 'none' };
    case 'sign':
      return { answer: 'error', code: 'ticket_invalid' }; // no generated text carries a ticket signed with the pinned key
  }
}
