/**
 * What `tawqi trigger` does for each event type: test-mode objects made through the public API and
 * the signer's page (signing-page/API.md), as an integrator's code and a signer would make them.
 *
 * The signer's one-time code goes to the signer's email (in test mode the account's own address or
 * a team member's), so the types that need it ask for the code; nothing on the API reveals it.
 */
import { RemoteError, SignerPage, type ApiClient } from './client.js';

/** A one-pixel PNG: the drawn signature of a triggered signing. */
const SIGNATURE_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';
const TEMPLATE_TITLE = 'tawqi trigger';

export interface Fixture {
  api: ApiClient;
  /** The signers' email: the account's own or a team member's (test mode, spec part 5). */
  email: string;
  /** Ask the person for the code sent to `destination` for signer `signerId`. */
  askCode(signerId: string, destination: string | null): Promise<string>;
}

interface Signer {
  id: string;
  signing_url: string | null;
}
interface Request {
  id: string;
  status: string;
  signers: Signer[];
}
interface PageState {
  step: string;
  otp: { destination: string | null };
}

/** The account's trigger template (made once, found by its title afterwards). */
async function template(api: ApiClient): Promise<string> {
  const find = async () => {
    const list = await api.get<{ data: { id: string; title: string }[] }>('/templates', {
      scope: 'mine',
      search: TEMPLATE_TITLE,
      limit: 100,
    });
    return list.body.data.find((t) => t.title === TEMPLATE_TITLE)?.id;
  };
  const found = await find();
  if (found) return found;
  try {
    const body = { title: TEMPLATE_TITLE, language: 'en', body: 'A test document made by tawqi trigger.', fields: [] };
    return (await api.post<{ id: string }>('/templates', body)).body.id;
  } catch (err) {
    // Another trigger made it meanwhile.
    if (err instanceof RemoteError && err.code === 'template_key_taken') return (await find())!;
    throw err;
  }
}

interface CreateOptions {
  signers?: number;
  send?: boolean;
  requireIdentity?: boolean;
}

async function createRequest(f: Fixture, o: CreateOptions = {}): Promise<Request> {
  const signers = Array.from({ length: o.signers ?? 1 }, (_, i) => ({
    name: `Test signer ${i + 1}`,
    email: f.email,
    ...(o.requireIdentity ? { require_identity: true } : {}),
  }));
  const body = {
    title: 'Triggered by tawqi trigger',
    source: { type: 'template', template_id: await template(f.api) },
    signers,
    ...(o.send === false ? { send: false } : {}),
    metadata: { tawqi_trigger: 'true' },
  };
  return (await f.api.post<Request>('/signature_requests', body)).body;
}

/** The first signer's page, opened and viewed (signer.viewed; signature_request.viewed on a first view). */
async function viewed(r: Request, index = 0): Promise<SignerPage> {
  const url = r.signers[index]?.signing_url;
  if (!url) throw new Error(`The request ${r.id} has no signing link for signer ${index + 1}.`);
  const page = await SignerPage.open(url);
  await page.call('POST', '/view');
  return page;
}

/** View, then the one-time code: sent by the server, typed by the person who received it. */
async function verified(f: Fixture, r: Request, index = 0): Promise<SignerPage> {
  const page = await viewed(r, index);
  const state = (await page.call<PageState>('POST', '/otp/send')).body;
  const code = await f.askCode(r.signers[index]!.id, state.otp.destination);
  await page.call('POST', '/otp/verify', { code });
  return page;
}

async function signed(f: Fixture, r: Request, index = 0): Promise<void> {
  const page = await verified(f, r, index);
  await page.call('POST', '/sign', { signature: SIGNATURE_PNG, consent: true });
}

async function identity(f: Fixture, decision: 'approve' | 'decline'): Promise<Request> {
  const r = await createRequest(f, { requireIdentity: true });
  const page = await verified(f, r);
  await page.call('POST', '/identity/simulate', { decision });
  return r;
}

export interface Scenario {
  /** What the trigger makes, shown by --list. */
  does: string;
  /** Whether it asks for the signer's one-time code. */
  needsCode: boolean;
  run(f: Fixture): Promise<Request>;
}

const created: Scenario = { does: 'a draft request', needsCode: false, run: (f) => createRequest(f, { send: false }) };
const sent: Scenario = { does: 'a request, sent', needsCode: false, run: (f) => createRequest(f) };
const view: Scenario = {
  does: 'a request whose signer opens the page',
  needsCode: false,
  run: async (f) => {
    const r = await createRequest(f);
    await viewed(r);
    return r;
  },
};
const decline: Scenario = {
  does: 'a request whose signer declines',
  needsCode: false,
  run: async (f) => {
    const r = await createRequest(f);
    const page = await viewed(r);
    await page.call('POST', '/decline', { reason: 'Declined by tawqi trigger' });
    return r;
  },
};
const cancel: Scenario = {
  does: 'a request, sent then canceled',
  needsCode: false,
  run: async (f) => {
    const r = await createRequest(f);
    await f.api.post(`/signature_requests/${r.id}/cancel`);
    return r;
  },
};
const otp: Scenario = {
  does: 'a request whose signer enters the code',
  needsCode: true,
  run: async (f) => {
    const r = await createRequest(f);
    await verified(f, r);
    return r;
  },
};
const complete: Scenario = {
  does: 'a one-signer request, signed',
  needsCode: true,
  run: async (f) => {
    const r = await createRequest(f);
    await signed(f, r);
    return r;
  },
};
const partial: Scenario = {
  does: 'a two-signer request, signed by the first',
  needsCode: true,
  run: async (f) => {
    const r = await createRequest(f, { signers: 2 });
    await signed(f, r);
    return r;
  },
};

export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  'signature_request.created': created,
  'signature_request.sent': sent,
  'signer.sent': sent,
  'signature_request.viewed': view,
  'signer.viewed': view,
  'signature_request.canceled': cancel,
  'signature_request.declined': decline,
  'signer.declined': decline,
  'signer.otp_verified': otp,
  'signer.signed': complete,
  'signature_request.completed': complete,
  'signature_request.partially_signed': partial,
  'signer.identity_verified': {
    does: 'a request with identity, approved in the simulation',
    needsCode: true,
    run: (f) => identity(f, 'approve'),
  },
  'signer.identity_declined': {
    does: 'a request with identity, declined in the simulation',
    needsCode: true,
    run: (f) => identity(f, 'decline'),
  },
};

/** Why the other types of spec 6.3 cannot be triggered in test mode. */
export const NOT_TRIGGERABLE: Readonly<Record<string, string>> = {
  'signature_request.expired': 'needs time to pass: a request expires days after it is sent',
  'signer.identity_in_review': 'the test-mode identity simulation only approves or declines',
  'signer.identity_resubmission_requested': 'the test-mode identity simulation only approves or declines',
  'signer.identity_match_hold': 'the test-mode identity simulation reads no document name',
  'signer.identity_match_decided': 'the test-mode identity simulation reads no document name',
  'document.sealed': 'live mode only (spec part 5)',
  'verification.created': 'live mode only (spec part 5)',
  'audit.whatsapp_simulated': 'needs a workflow on the WhatsApp channel',
};
