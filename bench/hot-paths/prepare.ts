/**
 * The data each hot path runs over, made before it is measured (not timed): on Tawqi through its
 * HTTP API as an integrator and a signer would (the test secret key; creates, the test helper that
 * passes the one-time code, the signing link opened for its page token), on the bare server through
 * its seed routes. Then what both need alike: the event pages' cursors, read by paging through
 * GET /api/v1/events, and on Tawqi a wait until its background queues have caught up.
 */
import { randomUUID } from 'node:crypto';
import { SIGNERS, TEMPLATE, createBody } from '../create-requests/workload.js';

/** Requests made at once during set-up (each a fetch of its own; Tawqi groups their commits). */
const PREPARE_WIDTH = 16;

/** One single-signer request ready to be signed: its id and the signer's page token. */
export interface SignItem {
  requestId: string;
  token: string;
}

/** A server as the driver prepares it: its base URL, whether it is Tawqi, and the key it reads with. */
export interface Target {
  url: string;
  tawqi: boolean;
  key: string;
  templateId: string | null;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(
  url: string,
  init: { method?: string; key?: string; headers?: Record<string, string>; body?: unknown },
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.method === 'POST') headers['idempotency-key'] = randomUUID();
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text: text.slice(0, 300) };
  }
  return { status: res.status, body };
}

function expect(what: string, answer: Answer, status: number): Record<string, unknown> {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 400)}`);
  return answer.body;
}

/** Run `work` over 0…count-1, `width` at a time; the results in order. */
async function inParallel<R>(count: number, width: number, work: (i: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
  return results;
}

/** Tawqi: the account's test key and a custom template (create-requests' workload). */
export async function tawqiTarget(url: string, testKey: string): Promise<Target> {
  const template = expect(
    'POST /api/v1/templates',
    await call(`${url}/api/v1/templates`, { method: 'POST', key: testKey, body: TEMPLATE }),
    201,
  );
  return { url, tawqi: true, key: testKey, templateId: String(template.id) };
}

/** The bare server: the key it made, as its seed routes return it. */
export const bareTarget = (url: string): Target => ({ url, tawqi: false, key: '', templateId: null });

/** `count` sent requests of three signers each (with their events); their ids. */
export async function makeRequests(t: Target, count: number): Promise<string[]> {
  if (!t.tawqi) {
    const seeded = expect(
      'seed requests',
      await call(`${t.url}/bench/seed/requests`, { method: 'POST', body: { count, signers: 3 } }),
      200,
    );
    t.key = String(seeded.key);
    return seeded.ids as string[];
  }
  return inParallel(count, PREPARE_WIDTH, async () => {
    const created = await call(`${t.url}/api/v1/signature_requests`, {
      method: 'POST',
      key: t.key,
      body: JSON.parse(createBody(t.templateId!)),
    });
    return String(expect('POST /api/v1/signature_requests', created, 201).id);
  });
}

/** One single-signer request on Tawqi, its code step passed, its signing link opened: ready for POST /sign/api/sign. */
async function tawqiSignItem(t: Target): Promise<SignItem> {
  const body = { title: 'Benchmark agreement', source: { type: 'template', template_id: t.templateId }, signers: [SIGNERS[0]] };
  const created = expect(
    'POST /api/v1/signature_requests',
    await call(`${t.url}/api/v1/signature_requests`, { method: 'POST', key: t.key, body }),
    201,
  );
  const signer = (created.signers as { id: string; signing_url: string }[])[0]!;
  const otp = await call(`${t.url}/api/v1/test_helpers/signers/${signer.id}/verify_otp`, { method: 'POST', key: t.key });
  expect('POST /api/v1/test_helpers/signers/{id}/verify_otp', otp, 200);
  const page = await fetch(signer.signing_url);
  const token = /<meta name="tawqi-page-token" content="([^"]+)">/.exec(await page.text())?.[1];
  if (page.status !== 200 || !token) throw new Error(`GET ${signer.signing_url}: ${page.status}, no page token`);
  return { requestId: String(created.id), token };
}

/** `count` single-signer requests ready to be signed, one page token each. */
export async function makeSignItems(t: Target, count: number): Promise<SignItem[]> {
  if (t.tawqi) return inParallel(count, PREPARE_WIDTH, () => tawqiSignItem(t));
  const seeded = expect('seed signers', await call(`${t.url}/bench/seed/signers`, { method: 'POST', body: { count } }), 200);
  t.key = String(seeded.key);
  const ids = seeded.ids as string[];
  return (seeded.tokens as string[]).map((token, i) => ({ requestId: ids[i]!, token }));
}

/** Every page of GET /api/v1/events?limit=…, newest first: the path of each (the first without a cursor). */
export async function eventPages(t: Target, limit: number): Promise<string[]> {
  const paths = [`/api/v1/events?limit=${limit}`];
  for (;;) {
    const page = expect(`GET ${paths.at(-1)}`, await call(t.url + paths.at(-1)!, { key: t.key }), 200);
    if (!page.has_more) return paths;
    paths.push(`/api/v1/events?limit=${limit}&starting_after=${String(page.next_cursor)}`);
  }
}

/** The statuses of a sample of requests (up to `sample`, spread over the list), to check a sign run. */
export async function statusesOf(t: Target, ids: readonly string[], sample: number): Promise<string[]> {
  const step = Math.max(1, Math.floor(ids.length / sample));
  const picked = ids.filter((_, i) => i % step === 0).slice(0, sample);
  return inParallel(picked.length, PREPARE_WIDTH, async (i) => {
    const got = await call(`${t.url}/api/v1/signature_requests/${picked[i]}`, { key: t.key });
    return got.status === 200 ? String(got.body.status) : `http_${got.status}`;
  });
}

/** Tawqi's durable queues: entries due now (GET /metrics, tawqi_queue_due). */
export async function queuesDue(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const due: Record<string, number> = {};
  for (const m of text.matchAll(/^tawqi_queue_due\{queue="(\w+)"\} (\S+)$/gm)) due[m[1]!] = Number(m[2]);
  return due;
}

/**
 * Wait until Tawqi's jobs and message outbox have nothing due (its runner has sealed every completed
 * request and held every message), polling GET /metrics every 200 ms; false after `timeoutMs`.
 */
export async function settle(url: string, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const due = await queuesDue(url);
    if ((due.jobs ?? 0) === 0 && (due.messages ?? 0) === 0) return true;
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
