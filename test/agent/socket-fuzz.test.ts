/**
 * The agent's local socket under hostile clients (issue 17, point 7). The agent runs as a real child
 * process (`tawqi-agent serve`, the CLI shell) with a SoftHSM2 token; its terminal prompts are the
 * instrument: with TAWQI_AGENT_TEST_CONSENT=yes and TAWQI_AGENT_TEST_PIN every consent and PIN
 * prompt is a line on its stderr, counted against the valid tickets sent. Generated (fast-check)
 * frames, tickets, origins and HTTP requests; slow clients; more connections than the cap. After
 * every batch: the process is alive and still signs a valid request, and it never prompted without
 * a valid ticket.
 *
 * CI uses a fixed seed; a longer run: TAWQI_FUZZ_SEED=<n> TAWQI_FUZZ_RUNS=<frames> (the other
 * properties scale with it). The number of cases run is printed.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AGENT_CLOSE_CODES, AGENT_MAX_MESSAGE_BYTES, type AgentResponse } from '@tawqi/shared';
import fc from 'fast-check';
import { TrustStore } from '../../agent/src/core/trust.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { waitFor } from '../support/waitFor.js';
import { listeningPort, opensslVerify, PageClient, spawnAgentCli, startFakeServer, type FakeServer } from './helpers.js';
import { clientFrame, RawClient, serverFrames, upgradeRequest } from './rawSocket.js';
import {
  expectedForText,
  expectedSign,
  frameCase,
  mintTicket,
  ticketPayload,
  type Expected,
  type FrameCase,
  type TicketMinter,
} from './socketFuzzCases.js';

const SEED = Number(process.env.TAWQI_FUZZ_SEED ?? 20261128);
const FRAME_RUNS = Number(process.env.TAWQI_FUZZ_RUNS ?? 240);
const scaled = (share: number): number => Math.max(10, Math.round(FRAME_RUNS * share));

/** Small so that the tests drive them in seconds; the defaults are in agent/src/core/socketLimits.ts. */
const LIMITS = { max_connections: 8, handshake_timeout_ms: 2000, heartbeat_interval_ms: 1500 };

let hsm: SoftHsm;
let server: FakeServer;
let home: string;
let agent: ChildProcess;
let port: number;
let stderr = '';
let exit: { code: number | null; signal: string | null } | null = null;
const wakers = new Set<() => void>();
let minter: TicketMinter;
/** Valid tickets sent for a certificate the token offers: each must give exactly one consent and one PIN prompt. */
let validSigns = 0;
let casesRun = 0;

const consentPrompts = (): number => stderr.match(/^Sign this document\? yes \(TAWQI_AGENT_TEST_CONSENT\)$/gm)?.length ?? 0;
const pinPrompts = (): number => stderr.match(/^PIN: \(TAWQI_AGENT_TEST_PIN\)$/gm)?.length ?? 0;
/** Lines that start like the agent's own prompts: a title or id printed raw could forge one. */
const promptLookalikes = (): number => stderr.match(/^(?:Sign this document\?|PIN for token|PIN:)/gm)?.length ?? 0;
const prompts = () => ({ consent: consentPrompts(), pin: pinPrompts(), lookalikes: promptLookalikes() });

before(async () => {
  hsm = createSoftHsm({}, false);
  server = await startFakeServer();
  home = mkdtempSync(path.join(tmpdir(), 'tawqi-agent-fuzz-'));
  writeFileSync(
    path.join(home, 'config.json'),
    JSON.stringify({ modules: [hsm.module], known_modules: false, ports: [0], log_level: 'warn', poll_interval_ms: 0, ...LIMITS }),
  );
  new TrustStore(home).add({ origin: server.origin, keyPem: server.publicKeyPem, fingerprint: server.fingerprint });
  minter = {
    origin: server.origin,
    key: server.privateKey,
    otherKey: generateKeyPairSync('ed25519').privateKey,
    certs: {
      rsa: hsm.certs.rsa.sha256,
      ec: hsm.certs.ec.sha256,
      ec384: hsm.certs.ec384.sha256,
      expired: hsm.certs.expired.sha256,
      noUsage: hsm.certs.noUsage.sha256,
    },
    nowS: () => Math.floor(Date.now() / 1000),
  };
  await startAgentProcess();
});

/** `tawqi-agent serve` on the test's data directory; its stderr is appended to `stderr` (prompt counts go on across restarts). */
async function startAgentProcess(): Promise<void> {
  exit = null;
  const child = spawnAgentCli(['serve'], {
    ...hsm.env,
    TAWQI_AGENT_HOME: home,
    TAWQI_AGENT_TEST_PIN: hsm.pin,
    TAWQI_AGENT_TEST_CONSENT: 'yes',
  });
  agent = child;
  const wake = () => [...wakers].forEach((w) => w());
  child.stderr?.on('data', (d: Buffer) => ((stderr += d.toString()), wake()));
  child.on('exit', (code, signal) => ((exit = { code, signal }), wake()));
  port = await listeningPort(child);
}

after(async () => {
  if (agent && !exit) {
    agent.kill('SIGTERM');
    await waitFor(
      () => exit ?? undefined,
      wakers,
      () => 'the agent did not stop',
      20_000,
    );
  }
  await server?.close();
  hsm?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
  console.log(`agent socket fuzz: ${casesRun} generated cases (seed ${SEED}), ${validSigns} valid signs`);
});

/** A page connection that said hello. */
async function page(origin = server.origin): Promise<PageClient> {
  const client = await PageClient.open(port, origin);
  const hello = await client.hello();
  assert.equal(hello.type, 'hello', JSON.stringify(hello));
  return client;
}

/** Retries a page connection until one is accepted (a closed client's place is freed when the agent sees the close). */
async function waitForConnection(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      (await page()).close();
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Opens connections with `open` (null: the agent dropped it) until max_connections are held. A
 * connection of an earlier test may still be closing on the agent's side, so a drop is retried.
 */
async function holdEveryPlace<T>(open: () => Promise<T | null>): Promise<T[]> {
  const held: T[] = [];
  for (let attempt = 0; held.length < LIMITS.max_connections; attempt++) {
    assert.ok(attempt < LIMITS.max_connections + 50, `only ${held.length} places could be held`);
    const connection = await open();
    if (connection) held.push(connection);
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return held;
}

type Outcome = { message: AgentResponse; statuses: string[] } | { closed: { code: number; reason: string }; statuses: string[] };

/** The next answer on `client` (sign-status messages collected on the way), or its close. */
async function outcome(client: PageClient): Promise<Outcome> {
  const statuses: string[] = [];
  for (;;) {
    const next = client.next((m) => m.type !== 'tokens-changed', 20_000);
    next.catch(() => {}); // when the close wins the race, the pending wait times out unobserved
    const first = await Promise.race([next.then((message) => ({ message })), client.closed.then((closed) => ({ closed }))]);
    if ('closed' in first) return { closed: first.closed, statuses };
    if (first.message.type !== 'sign-status') return { message: first.message, statuses };
    statuses.push(first.message.status);
  }
}

/** The process is alive, says hello, and signs a valid ticket (CMS checked by openssl). */
async function assertAlive(): Promise<void> {
  assert.equal(exit, null, `the agent exited: ${JSON.stringify(exit)}\n${stderr.slice(-2000)}`);
  const client = await page();
  try {
    const content = Buffer.from(`alive ${randomBytes(4).toString('hex')}`);
    const digest = createHash('sha256').update(content).digest('hex');
    const id = client.send({
      type: 'sign',
      ticket: server.mint({ cert_sha256: hsm.certs.ec.sha256, digest }),
      cert_sha256: hsm.certs.ec.sha256,
    });
    validSigns++;
    const answer = await client.answer(id);
    assert.equal(answer.type, 'signature', JSON.stringify(answer));
    if (answer.type === 'signature') assert.ok(opensslVerify(Buffer.from(answer.cms, 'base64'), content, hsm.rootPemFile).ok);
  } finally {
    client.close();
    await client.closed;
  }
  await assertPromptsMatch();
}

/** Exactly one consent and one PIN prompt per valid sign so far: none without a valid ticket. */
async function assertPromptsMatch(): Promise<void> {
  // stderr and the socket are two pipes: let the prompt lines of the last sign arrive.
  await waitFor(
    () => (consentPrompts() >= validSigns && pinPrompts() >= validSigns ? true : undefined),
    wakers,
    () => 'prompts missing',
    20_000,
  );
  assert.deepEqual(
    prompts(),
    { consent: validSigns, pin: validSigns, lookalikes: 3 * validSigns },
    'a prompt for each valid ticket, never another',
  );
}

function check(expected: Expected, got: Outcome, label: string): void {
  const context = `${label} → ${JSON.stringify('message' in got ? got.message : got.closed).slice(0, 300)}`;
  if (expected.answer !== 'signature') assert.deepEqual(got.statuses, [], `sign-status without a valid ticket: ${context}`);
  switch (expected.answer) {
    case 'close':
      assert.ok('closed' in got && got.closed.code === expected.close, `expected close ${expected.close}: ${context}`);
      return;
    case 'error':
      assert.ok('message' in got && got.message.type === 'error', `expected error ${expected.code}: ${context}`);
      if ('message' in got && got.message.type === 'error') assert.equal(got.message.code, expected.code, context);
      return;
    case 'none':
      return;
    default:
      assert.ok('message' in got && got.message.type === expected.answer, `expected ${expected.answer}: ${context}`);
  }
}

/** Sends one generated frame on a fresh connection that said hello and checks the answer. */
async function runFrame(frame: FrameCase): Promise<void> {
  casesRun++;
  const client = await page();
  try {
    let expected: Expected;
    let label: string;
    switch (frame.kind) {
      case 'text': {
        const wire = Buffer.from(frame.text).toString(); // what a lone surrogate becomes on the wire (U+FFFD)
        expected = expectedForText(wire);
        label = `text ${JSON.stringify(wire.slice(0, 200))}`;
        client.ws.send(wire);
        if (expected.answer === 'none') {
          // A cancel is not answered: the hello sent after it must be the next answer.
          client.send({ type: 'hello', versions: [1] });
          expected = { answer: 'hello' };
        }
        break;
      }
      case 'binary':
        expected = { answer: 'error', code: 'bad_message' };
        label = 'binary frame';
        client.ws.send(frame.bytes, { binary: true });
        break;
      case 'bad-utf8':
        expected = { answer: 'close', close: 1007 };
        label = `text frame with bytes ${Buffer.from(frame.bytes).toString('hex')}`;
        client.ws.send(Buffer.from(frame.bytes), { binary: false });
        break;
      case 'oversize':
        expected = { answer: 'close', close: 1009 };
        label = `${frame.text ? 'text' : 'binary'} frame of ${AGENT_MAX_MESSAGE_BYTES + frame.extra} bytes`;
        client.ws.send(Buffer.alloc(AGENT_MAX_MESSAGE_BYTES + frame.extra, 0x61), { binary: !frame.text });
        break;
      case 'sign': {
        const payload = ticketPayload(frame.ticket, minter);
        const ticket = mintTicket(frame.ticket, payload, minter);
        const wanted = expectedSign(frame.ticket, payload);
        const certSha256 = String(payload.cert_sha256).match(/^[0-9a-f]{64}$/) ? String(payload.cert_sha256) : hsm.certs.rsa.sha256;
        label = `sign ${frame.ticket.kind} ${frame.ticket.cert} ${JSON.stringify(frame.ticket.fields).slice(0, 200)}`;
        if (frame.ticket.kind === 'replayed') {
          // First use: verified and its jti recorded (then refused for naming another certificate).
          client.send({ type: 'sign', ticket, cert_sha256: 'f'.repeat(64) });
          const first = await outcome(client);
          assert.ok('message' in first && first.message.type === 'error', label);
        }
        const other = frame.ticket.kind === 'cert-mismatch' ? 'e'.repeat(64) : certSha256;
        client.send({ type: 'sign', id: frame.id, ticket, cert_sha256: other });
        if (wanted === 'signature') validSigns++;
        // A ticket that is not a compact base64url pair is refused by the message schema first.
        const schemaOk = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(ticket) && ticket.length <= 8192;
        expected = !schemaOk
          ? { answer: 'error', code: 'bad_message' }
          : wanted === 'signature'
            ? { answer: 'signature' }
            : { answer: 'error', code: wanted };
        break;
      }
    }
    const got = await outcome(client);
    check(expected, got, label);
    if (expected.answer === 'error' && expected.close) assert.equal((await client.closed).code, expected.close, label);
  } finally {
    client.close();
  }
}

describe('agent socket fuzzing', () => {
  test('generated frames: each gets its documented answer; prompts only for valid tickets', async () => {
    for (let batch = 0; batch < 3; batch++) {
      await fc.assert(fc.asyncProperty(frameCase, runFrame), {
        seed: SEED + batch,
        numRuns: Math.ceil(FRAME_RUNS / 3),
        endOnFailure: true,
      });
      await assertAlive();
    }
  });

  test('generated origins: only the trusted one gets an answer; the others origin_not_trusted and 4403', async () => {
    // What Node's HTTP client lets through in a header value; the HTTP parser trims spaces and tabs around it.
    const headerChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09));
    const origin = fc.oneof(
      fc.string({ unit: headerChar.map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 60 }),
      fc.constantFrom(
        `${server.origin}/`,
        server.origin.toUpperCase(),
        server.origin.replace('http:', 'https:'),
        server.origin.replace('127.0.0.1', 'localhost'),
        `${server.origin}.evil.example`,
        ` ${server.origin}\t`,
        'null',
        'file://',
      ),
    );
    await fc.assert(
      fc.asyncProperty(origin, async (o) => {
        casesRun++;
        const client = await PageClient.open(port, o);
        try {
          if (o.replace(/^[ \t]+|[ \t]+$/g, '') === server.origin) {
            assert.equal((await client.hello()).type, 'hello');
            return;
          }
          const got = await outcome(client);
          assert.ok('message' in got && got.message.type === 'error' && got.message.code === 'origin_not_trusted', JSON.stringify(o));
          assert.equal((await client.closed).code, AGENT_CLOSE_CODES.originNotTrusted);
        } finally {
          client.close();
        }
      }),
      { seed: SEED, numRuns: scaled(0.25), endOnFailure: true },
    );
    await assertAlive();
  });

  test('generated HTTP requests (methods, paths, headers, raw bytes): a 4xx or the upgrade, never a crash', async () => {
    const token = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz-!#$%&'.split('')), minLength: 1, maxLength: 12 });
    const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });
    const anyLatin1 = fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((v) => v.replace(/[\r\n]/g, ''));
    /** Mostly the valid value, so that requests get past the first check and reach the later ones. */
    const mostly = (valid: string | null, ...others: fc.Arbitrary<string | null>[]) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(valid) }, ...others.map((arbitrary) => ({ weight: 1, arbitrary })));
    const structured = fc.record({
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constant('GET') },
        fc.constantFrom('POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'),
        token,
      ),
      path: fc.oneof(
        fc.constantFrom('/', '/sign', '/../../etc/passwd', '*', 'http://evil.example/', '/%00', `/${'a'.repeat(9000)}`),
        fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
      ),
      headers: fc.record({
        Host: mostly(`127.0.0.1:${port}`, fc.constant(`localhost:${port}`), fc.constant('evil.example'), printable),
        Upgrade: mostly('websocket', fc.constant(null), printable),
        Connection: mostly('Upgrade', fc.constant(null), fc.constant('keep-alive'), printable),
        'Sec-WebSocket-Key': mostly(randomBytes(16).toString('base64'), fc.constant(null), printable),
        'Sec-WebSocket-Version': mostly('13', fc.constant(null), fc.constantFrom('8', '14', '')),
        Origin: mostly(server.origin, fc.constant(null), printable, anyLatin1),
        'X-Fuzz': fc.oneof(printable, printable, anyLatin1),
        'Content-Length': mostly(null, fc.constantFrom('0', '5', '-1', 'abc', '99999999999999999999')),
        'Transfer-Encoding': mostly(null, fc.constantFrom('chunked', 'gzip, chunked', 'x')),
      }),
    });
    const request = fc.oneof(
      { weight: 4, arbitrary: structured.map((r) => Buffer.from(upgradeRequest(port, r.headers, r.method, r.path), 'latin1')) },
      // Anything at all, ended like a request so that the parser answers instead of waiting.
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])) },
    );
    const statuses = new Map<number | null, number>();
    await fc.assert(
      fc.asyncProperty(request, async (bytes) => {
        casesRun++;
        const raw = await RawClient.open(port);
        try {
          raw.write(bytes);
          const status = await raw.status();
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          // 101 for a well-formed upgrade (the origin check then answers over the WebSocket); a clean
          // 4xx otherwise; null when the parser gave up on bytes that are no HTTP (closed, no answer).
          assert.ok(
            status === null || [101, 400, 401, 405, 426, 431].includes(status),
            `status ${status} for ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`,
          );
        } finally {
          raw.destroy();
        }
      }),
      { seed: SEED, numRuns: scaled(0.4), endOnFailure: true },
    );
    console.log(`agent socket fuzz: HTTP statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    await assertAlive();
  });

  test('a valid ticket whose title and ids carry line breaks, escapes and bidi overrides: one prompt, none forged', async () => {
    // The server lets line breaks through in a title (strict inputs refuse other control characters);
    // a sender must not be able to print a line that passes for the agent's own in the signer's terminal.
    const title = 'Lease\nServer:       https://bank.example\nPIN: (TAWQI_AGENT_TEST_PIN)\n\u202eelbatpecca\u001b[2J\u009b2J';
    const client = await page();
    try {
      const id = client.send({
        type: 'sign',
        ticket: server.mint({
          cert_sha256: hsm.certs.rsa.sha256,
          title,
          request_id: 'sr_\r\nDigest: SHA-256 0000',
          signer_id: 'sgr\u2066x',
        }),
        cert_sha256: hsm.certs.rsa.sha256,
      });
      validSigns++;
      assert.equal((await client.answer(id)).type, 'signature');
    } finally {
      client.close();
    }
    await assertPromptsMatch();
    assert.equal(stderr.match(/^Server: /gm)?.length, consentPrompts(), 'one Server line per consent');
    assert.equal(stderr.match(/^Digest: /gm)?.length, consentPrompts(), 'one Digest line per consent');
    // eslint-disable-next-line no-control-regex -- an ESC must not reach the terminal
    assert.doesNotMatch(stderr, /[\u001b\u009b\u202e\u2066]/, 'no escape sequence or bidi override reaches the terminal');
    assert.match(stderr, /Document: +“Lease\\u\{000A\}Server: /, 'the title is shown, its line breaks visible');
  });

  test('fragmented messages: over 64 KiB in total closes with 1009; under it, the fragments make one message', async () => {
    for (const [fragments, size] of [
      [70, 1024],
      [8, 1024],
    ] as const) {
      const raw = await RawClient.open(port);
      try {
        raw.write(upgradeRequest(port, { Origin: server.origin }));
        assert.equal(await raw.status(), 101);
        // A hello padded with JSON whitespace to fragments × size bytes, sent as a first frame and continuations.
        const head = '{"type":"hello","id":"frag","versions":[1]';
        const message = Buffer.from(`${head}${' '.repeat(fragments * size - head.length - 1)}}`);
        for (let i = 0; i < fragments; i++) {
          const part = message.subarray(i * size, (i + 1) * size);
          raw.write(clientFrame(i === 0 ? 1 : 0, part, i === fragments - 1));
        }
        const tooBig = message.length > AGENT_MAX_MESSAGE_BYTES;
        const frame = await waitFor(
          () => serverFrames(raw.received).find((f) => f.opcode === 8 || f.opcode === 1),
          raw.wakers,
          () => 'no answer to the fragmented message',
          20_000,
        );
        if (tooBig) assert.deepEqual([frame.opcode, frame.payload.readUInt16BE(0)], [8, 1009]);
        else assert.equal((JSON.parse(frame.payload.toString()) as { type: string }).type, 'hello', 'answered as one message');
      } finally {
        raw.destroy();
      }
    }
    await assertAlive();
  });

  test('a message over the limit is closed cleanly: the 1009 close frame and the end of the stream, not a reset', async () => {
    const raw = await RawClient.open(port);
    const errors: string[] = [];
    raw.socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    try {
      raw.write(upgradeRequest(port, { Origin: server.origin }));
      assert.equal(await raw.status(), 101);
      raw.write(clientFrame(1, Buffer.alloc(AGENT_MAX_MESSAGE_BYTES + 1024, 0x20)));
      const frame = await waitFor(
        () => serverFrames(raw.received).find((f) => f.opcode === 8),
        raw.wakers,
        () => 'no close frame for the message over the limit',
        20_000,
      );
      assert.equal(frame.payload.readUInt16BE(0), 1009);
      // The page still writes (a ping), then ends its side. An agent that dropped the socket at the
      // error answers that with a reset, which can also throw away its close frame unread.
      raw.socket.write(clientFrame(9, Buffer.from('still here')));
      raw.socket.end();
      await raw.closed;
      assert.deepEqual(errors, [], 'closed with the end of the stream, not reset');
    } finally {
      raw.destroy();
    }
    await assertAlive();
  });

  test('slowloris: upgrade headers trickled byte by byte are cut at the handshake deadline', async () => {
    const raw = await RawClient.open(port);
    const request = upgradeRequest(port, { Origin: server.origin, 'X-Padding': 'p'.repeat(200) });
    // 25 ms a byte: the request would take over 6 s; the agent's deadline is handshake_timeout_ms.
    const sent = await raw.trickle(request, 25);
    await raw.closed;
    assert.ok(sent < request.length, `the agent waited for all ${request.length} bytes`);
    assert.equal(raw.received.length, 0, 'no answer to an unfinished handshake');
    await assertAlive();
  });

  test('idle clients: a silent connection and a kept-alive plain request are closed at the deadline', async () => {
    const silent = await RawClient.open(port);
    const plain = await RawClient.open(port);
    plain.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    assert.equal(await plain.status(), 426);
    await Promise.all([silent.closed, plain.closed]);
    await assertAlive();
  });

  test('a frame trickled byte by byte is never answered and the client is dropped by the heartbeat', async () => {
    const raw = await RawClient.open(port);
    raw.write(upgradeRequest(port, { Origin: server.origin }));
    assert.equal(await raw.status(), 101);
    const frame = clientFrame(1, Buffer.from(JSON.stringify({ type: 'hello', id: 'slow', versions: [1], client: 'x'.repeat(200) })));
    const sent = await raw.trickle(frame, 25);
    await raw.closed;
    assert.ok(sent < frame.length, 'the heartbeat closed the connection before the frame was complete');
    assert.doesNotMatch(raw.received.toString('latin1'), /"type":"hello"/, 'the unfinished message was never answered');
    await assertAlive();
  });

  test('connections beyond max_connections are dropped, whatever their state; places come back as clients leave', async () => {
    // Every place held by a plain request left open (answered 426, kept alive, never upgraded).
    const held = await holdEveryPlace(async () => {
      const raw = await RawClient.open(port).catch(() => null);
      if (!raw) return null;
      raw.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      if ((await raw.status()) === 426) return raw;
      raw.destroy();
      return null;
    });
    for (let i = 0; i < 3; i++) await assert.rejects(PageClient.open(port, server.origin), /ECONNRESET|socket hang up/);
    // They never upgrade: the handshake deadline frees their places.
    await Promise.all(held.map((c) => c.closed));
    const pages = await holdEveryPlace(() => page().catch(() => null));
    try {
      await assert.rejects(PageClient.open(port, server.origin), /ECONNRESET|socket hang up/, 'pages that said hello count too');
      const leaving = pages.pop();
      leaving?.close();
      await leaving?.closed;
      await waitForConnection();
    } finally {
      for (const p of pages) p.close();
    }
    await waitForConnection();
    await assertAlive();
    assert.match(stderr, /too many connections/, 'the drops are logged');
  });

  test('a burst of valid signs over several connections: each is signed or answered busy, one prompt per signature', async () => {
    const clients = await Promise.all([0, 1, 2].map(() => page()));
    try {
      const cert = hsm.certs.ec.sha256;
      const sent = clients.flatMap((client) =>
        [0, 1, 2, 3].map(() => ({
          client,
          id: client.send({ type: 'sign', ticket: server.mint({ cert_sha256: cert }), cert_sha256: cert }),
        })),
      );
      const answers = await Promise.all(sent.map(({ client, id }) => client.answer(id)));
      const signed = answers.filter((a) => a.type === 'signature').length;
      const busy = answers.filter((a) => a.type === 'error' && a.code === 'busy').length;
      assert.equal(signed + busy, answers.length, JSON.stringify(answers.map((a) => (a.type === 'error' ? a.code : a.type))));
      assert.ok(signed >= 1);
      validSigns += signed;
    } finally {
      for (const client of clients) client.close();
    }
    await assertPromptsMatch();
  });

  test('killed with SIGKILL and restarted: a ticket used before the kill stays used; the agent answers again', async () => {
    const ticket = server.mint({ cert_sha256: hsm.certs.rsa.sha256 });
    const earlier = await page();
    const first = await earlier.answer(earlier.send({ type: 'sign', ticket, cert_sha256: 'f'.repeat(64) }));
    assert.equal(first.type === 'error' && first.code, 'certificate_mismatch', 'first use: verified, its jti recorded');
    agent.kill('SIGKILL');
    await waitFor(
      () => exit ?? undefined,
      wakers,
      () => 'the agent did not die',
      20_000,
    );
    await startAgentProcess();
    const later = await page();
    try {
      const replay = await later.answer(later.send({ type: 'sign', ticket, cert_sha256: hsm.certs.rsa.sha256 }));
      assert.equal(replay.type === 'error' && replay.code, 'ticket_replayed');
    } finally {
      later.close();
    }
    await assertAlive();
  });

  test('the agent never prompted without a valid ticket and never crashed', async () => {
    await assertAlive();
    assert.doesNotMatch(stderr, /"level":"error"/, 'no internal error was logged');
  });

  test('SIGTERM with clients still connected (a page, a socket in its handshake, a refused origin): a clean exit', async () => {
    const client = await page();
    const raw = await RawClient.open(port);
    raw.write('GET / HTTP/1.1\r\n');
    const refused = await RawClient.open(port);
    refused.write(upgradeRequest(port, { Origin: 'https://evil.example' })); // never answers the close
    assert.equal(await refused.status(), 101);
    agent.kill('SIGTERM');
    assert.deepEqual(
      await waitFor(
        () => exit ?? undefined,
        wakers,
        () => 'the agent did not stop',
        30_000,
      ),
      { code: 0, signal: null },
    );
    await Promise.all([client.closed, raw.closed, refused.closed]);
  });
});
