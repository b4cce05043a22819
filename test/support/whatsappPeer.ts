/**
 * A local stand-in for the WhatsApp Business Cloud API (Graph API) on 127.0.0.1, port 0. It
 * checks every request the way Meta documents it, independently of the server's code:
 *
 *   POST /{version}/{phone_number_id}/messages
 *   Authorization: Bearer {token}, Content-Type: application/json
 *   {"messaging_product":"whatsapp","recipient_type":"individual","to":"<digits>","type":"template",
 *    "template":{"name":"<lowercase_with_underscores>","language":{"code":"ar"|"en"[,"policy":"deterministic"]},
 *                "components":[{"type":"body","parameters":[{"type":"text","text":"…"},…]},
 *                              {"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"…"}]}?]}}
 *
 * A good request gets Meta's success answer (200, contacts and messages[0].id "wamid.…"); a bad
 * one gets Meta's error envelope (400, error.code 100, "(#100) Invalid parameter") and is kept in
 * `problems`. `refuse` (every request) and `refuseTo` (some numbers) make it answer with an error,
 * as Meta does for a number that cannot receive the message (code 131026), to provoke delivery failures.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WhatsAppMessage {
  to: string;
  template: { name: string; language: string; body: string[]; button: string | null };
  raw: Record<string, unknown>;
}

export interface WhatsAppPeer {
  url: string;
  version: string;
  phoneNumberId: string;
  token: string;
  messages: WhatsAppMessage[];
  problems: string[];
  /** Answer every request with a Meta error (true) or normally (false). */
  refuse: boolean;
  /** Numbers (digits, as sent in `to`) answered with a Meta error; the others normally. */
  refuseTo: Set<string>;
  /** The server environment that points Tawqi at this peer. */
  env(extra?: Record<string, string>): Record<string, string>;
  waitFor(count: number, timeoutMs?: number): Promise<WhatsAppMessage[]>;
  close(): Promise<void>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The shape rules, as a list of what is wrong (empty: a valid template message). */
export function templateProblems(body: unknown): string[] {
  const p: string[] = [];
  if (!isObj(body)) return ['body is not a JSON object'];
  if (body.messaging_product !== 'whatsapp') p.push('messaging_product must be "whatsapp"');
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') p.push('recipient_type must be "individual"');
  if (typeof body.to !== 'string' || !/^\+?[1-9]\d{6,14}$/.test(body.to)) p.push('to must be a phone number with its country code');
  if (body.type !== 'template') p.push('type must be "template" (a business-initiated message)');
  const t = body.template;
  if (!isObj(t)) return [...p, 'template object missing'];
  if (typeof t.name !== 'string' || !/^[a-z0-9_]+$/.test(t.name)) p.push('template.name must be a template name');
  if (!isObj(t.language) || typeof t.language.code !== 'string' || !/^[a-z]{2}(_[A-Z]{2})?$/.test(t.language.code))
    p.push('template.language.code must be a language code');
  if (isObj(t.language) && t.language.policy !== undefined && t.language.policy !== 'deterministic')
    p.push('template.language.policy must be "deterministic"');
  if (!Array.isArray(t.components)) return [...p, 'template.components must be an array'];
  for (const [i, c] of (t.components as unknown[]).entries()) {
    if (!isObj(c)) {
      p.push(`components[${i}] is not an object`);
      continue;
    }
    if (c.type === 'button') {
      if (c.sub_type !== 'url' && c.sub_type !== 'quick_reply') p.push(`components[${i}].sub_type must be url or quick_reply`);
      if (typeof c.index !== 'string' || !/^\d$/.test(c.index)) p.push(`components[${i}].index must be a digit string`);
    } else if (c.type !== 'body' && c.type !== 'header') {
      p.push(`components[${i}].type must be body, header or button`);
    }
    if (!Array.isArray(c.parameters) || c.parameters.length === 0) {
      p.push(`components[${i}].parameters must be a non-empty array`);
      continue;
    }
    for (const [j, param] of (c.parameters as unknown[]).entries()) {
      if (!isObj(param) || param.type !== 'text' || typeof param.text !== 'string' || param.text.length === 0)
        p.push(`components[${i}].parameters[${j}] must be {type: "text", text: "…"}`);
      else if (param.text.length > 1024) p.push(`components[${i}].parameters[${j}].text is longer than 1024 characters`);
    }
  }
  if (!(t.components as unknown[]).some((c) => isObj(c) && c.type === 'body')) p.push('a body component is expected');
  return p;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startWhatsAppPeer(opts: { version?: string; phoneNumberId?: string; token?: string } = {}): Promise<WhatsAppPeer> {
  const version = opts.version ?? 'v21.0';
  const phoneNumberId = opts.phoneNumberId ?? '109876543210987';
  const token = opts.token ?? 'EAAtest' + 'x'.repeat(40);
  const messages: WhatsAppMessage[] = [];
  const problems: string[] = [];
  const waiters: (() => void)[] = [];
  let serial = 0;

  const error = (status: number, code: number, message: string) => ({
    status,
    body: {
      error: {
        message,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: message },
        fbtrace_id: 'AbCdEfGh',
      },
    },
  });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const fail = (problem: string, e = error(400, 100, `(#100) Invalid parameter: ${problem}`)) => {
        problems.push(problem);
        answer(e.status, e.body);
      };
      if (req.method !== 'POST') return fail(`method ${req.method}`, error(405, 100, 'Unsupported method'));
      if (req.url !== `/${version}/${phoneNumberId}/messages`) return fail(`path ${req.url}`, error(404, 803, 'Unknown path components'));
      if (req.headers.authorization !== `Bearer ${token}`) return fail('authorization', error(401, 190, 'Invalid OAuth access token'));
      if (!/^application\/json/.test(req.headers['content-type'] ?? '')) return fail(`content-type ${req.headers['content-type']}`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return fail('body is not JSON');
      }
      const shape = templateProblems(body);
      if (shape.length > 0) return fail(shape.join('; '));
      const b = body as {
        to: string;
        template: { name: string; language: { code: string }; components: { type: string; parameters: { text: string }[] }[] };
      };
      if (peer.refuse || peer.refuseTo.has(b.to)) {
        const e = error(400, 131026, 'Message undeliverable');
        return answer(e.status, e.body);
      }
      const comps = b.template.components;
      messages.push({
        to: b.to,
        template: {
          name: b.template.name,
          language: b.template.language.code,
          body: comps.find((c) => c.type === 'body')!.parameters.map((x) => x.text),
          button: comps.find((c) => c.type === 'button')?.parameters[0]?.text ?? null,
        },
        raw: body as Record<string, unknown>,
      });
      for (const w of waiters.splice(0)) w();
      answer(200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: b.to, wa_id: b.to.replace(/^\+/, '') }],
        messages: [{ id: `wamid.TEST${++serial}` }],
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const peer: WhatsAppPeer = {
    url,
    version,
    phoneNumberId,
    token,
    messages,
    problems,
    refuse: false,
    refuseTo: new Set(),
    env: (extra = {}) => ({
      TAWQI_WHATSAPP_API_URL: url,
      TAWQI_WHATSAPP_API_VERSION: version,
      TAWQI_WHATSAPP_PHONE_NUMBER_ID: phoneNumberId,
      TAWQI_WHATSAPP_TOKEN: token,
      TAWQI_WHATSAPP_TEMPLATE_OTP: 'tawqi_code',
      ...extra,
    }),
    waitFor: (count, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (messages.length < count) return false;
          clearTimeout(timer);
          resolve(messages);
          return true;
        };
        const timer = setTimeout(
          () => reject(new Error(`WhatsApp peer: ${messages.length} of ${count} messages after ${timeoutMs} ms`)),
          timeoutMs,
        );
        if (!check()) waiters.push(() => void check());
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return peer;
}
