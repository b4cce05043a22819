/**
 * The examples of sdk/node/README.md run: each `<!-- example: examples/… -->` block is the file of
 * that name, verbatim, and each file runs as its own process (node + tsx, as a reader would run it)
 * against a real server. The webhook receiver gets real deliveries: the server signs and posts them
 * to an HTTPS receiver, which hands the exact bytes and header on to the example (as a TLS-ending
 * proxy would).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../server/src/clock.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import type { TestServer } from '../support/server.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

const SDK = fileURLToPath(new URL('../../sdk/node/', import.meta.url));
const README = readFileSync(path.join(SDK, 'README.md'), 'utf8');

/** The README's example blocks: the file each names and the code it shows. */
function exampleBlocks(): { file: string; code: string }[] {
  return [...README.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map((m) => ({ file: m[1]!, code: m[2]! }));
}

/** How long an example may take to print a line the test waits for (each takes a second or two). */
const EXAMPLE_LINE_DEADLINE_MS = 120_000;

/** An example as its own process; its output lines as they come. */
function runExample(
  file: string,
  env: Record<string, string>,
): { proc: ChildProcess; lines: string[]; next: (re: RegExp) => Promise<string> } {
  const proc = spawn(process.execPath, ['--conditions=tawqi-source', '--import', 'tsx', path.join(SDK, file)], {
    cwd: SDK,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: { re: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of waiting.splice(0))
      if (w.re.test(line)) w.resolve(line);
      else waiting.push(w);
  });
  // A line that never comes fails the test with what the example printed, within the deadline
  // (not at the runner's 20-minute limit).
  const next = (re: RegExp, timeoutMs = EXAMPLE_LINE_DEADLINE_MS) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((l) => re.test(l));
      if (seen) return resolve(seen);
      const deadline = setTimeout(() => {
        const at = waiting.indexOf(waiter);
        if (at >= 0) waiting.splice(at, 1);
        reject(new Error(`${file}: no line matching ${re} within ${timeoutMs} ms; it printed:\n${lines.join('\n')}`));
      }, timeoutMs);
      const waiter = {
        re,
        resolve: (line: string) => {
          clearTimeout(deadline);
          resolve(line);
        },
      };
      waiting.push(waiter);
    });
  return { proc, lines, next };
}

const exited = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => (proc.exitCode !== null ? resolve(proc.exitCode) : proc.once('exit', (code) => resolve(code))));

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('sdk/node/README.md examples', () => {
  let ca: TestCa;
  let s: TestServer;
  let key: string;
  before(async () => {
    ca = makeTestCa();
    // The wall clock's time: the example verifies webhooks against Date.now().
    s = await startWebhookTestServer(ca, {}, undefined, new ManualClock(Date.now()));
    const acct = await s.account({ ownerEmail: 'amira@example.com' });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: ['amira@example.com'] }));
    key = acct.keys.secret_test;
  });
  after(async () => {
    await s.close();
    ca.cleanup();
  });

  test('every example block is its file, verbatim, and both files are shown', () => {
    const blocks = exampleBlocks();
    assert.deepEqual(
      blocks.map((b) => b.file),
      ['examples/signature-request.ts', 'examples/webhook-receiver.ts'],
    );
    for (const b of blocks) assert.equal(b.code, readFileSync(path.join(SDK, b.file), 'utf8'), `${b.file} differs from the README`);
  });

  test('examples/signature-request.ts: creates a request, lists it, shows a typed error', async () => {
    const run = runExample('examples/signature-request.ts', { TAWQI_SECRET_KEY: key, TAWQI_BASE_URL: s.url });
    assert.equal(await exited(run.proc), 0, run.lines.join('\n'));
    const created = /^created (sr_\S+) sent (http\S+)$/.exec(run.lines.find((l) => l.startsWith('created')) ?? '');
    assert.ok(created, run.lines.join('\n'));
    assert.ok(run.lines.includes(`listed ${created[1]} Consulting agreement: Amira Saleh`), run.lines.join('\n'));
    assert.match(run.lines.at(-1)!, /^refused parameter_invalid signers\[0\]\.email req_\S+$/);
    const stored = await s.call('GET', `/signature_requests/${created[1]}`, { key });
    assert.equal(stored.body.status, 'sent');
  });

  test('examples/webhook-receiver.ts: verifies the server’s real deliveries and refuses a changed one', async () => {
    const rx = await WebhookReceiver.start(ca);
    const port = await freePort();
    const ep = await s.call('POST', '/webhook_endpoints', { key, body: { url: rx.url(), enabled_events: ['signature_request.sent'] } });
    assert.equal(ep.status, 201, ep.text);
    const receiver = runExample('examples/webhook-receiver.ts', { PORT: String(port), TAWQI_WEBHOOK_SECRET: ep.body.secret });
    try {
      await receiver.next(/^listening$/);
      const tpl = await s.call('POST', '/templates', { key, body: { title: 'Hooked', language: 'en', body: 'Agreed.' } });
      await s.call('POST', '/signature_requests', {
        key,
        body: {
          title: 'Hooked',
          source: { type: 'template', template_id: tpl.body.id },
          signers: [{ name: 'Amira', email: 'amira@example.com' }],
        },
      });
      await s.webhooks.runDue();
      assert.equal(rx.received.length, 1, 'the server delivered signature_request.sent');
      const hand = (body: string, signature: string) =>
        fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'svc-signature': signature },
          body,
        });
      for (const r of rx.received) {
        assert.equal((await hand(r.rawBody, r.headers['svc-signature'] as string)).status, 200);
        const id = (JSON.parse(r.rawBody) as { id: string }).id;
        await receiver.next(new RegExp(`^verified ${id} signature_request\\.sent$`));
      }
      const first = rx.received[0]!;
      assert.equal(
        (await hand(first.rawBody.replace('"livemode":false', '"livemode":true'), first.headers['svc-signature'] as string)).status,
        400,
      );
      await receiver.next(/^refused No v1 signature matches/);
    } finally {
      receiver.proc.kill();
      await rx.close();
    }
  });
});
