/**
 * What `tawqi trigger` does for each event type: test-mode objects made through the public API, as
 * an integrator's code would make them; the signer's page (signing-page/API.md) for opening and
 * declining; and the test helpers (POST /test_helpers/signers/{id}/…) for the steps behind the
 * one-time code sent to the signer's inbox, which run the page's own functions on the server — so
 * every type runs unattended and emits exactly the events a real signer would.
 */
import { TawqiError, type Tawqi } from '@tawqi/node';
import { SignerPage } from './client.js';

const TEMPLATE_TITLE = 'tawqi trigger';

export interface Fixture {
  tawqi: Tawqi;
  /** The signers' email: the account's own or a team member's (test mode, spec part 5). */
  email: string;
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

/** The account's trigger template (made once, found by its title afterwards). */
async function template(tawqi: Tawqi): Promise<string> {
  const find = async () => {
    const list = await tawqi.templates.list({ scope: 'mine', search: TEMPLATE_TITLE, limit: 100 });
    return list.data.find((t) => t.title === TEMPLATE_TITLE)?.id;
  };
  const found = await find();
  if (found) return found;
  try {
    const body = { title: TEMPLATE_TITLE, language: 'en' as const, body: 'A test document made by tawqi trigger.', fields: [] };
    return (await tawqi.templates.create(body)).id;
  } catch (err) {
    // Another trigger made it meanwhile.
    if (err instanceof TawqiError && err.code === 'template_key_taken') return (await find())!;
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
    source: { type: 'template' as const, template_id: await template(f.tawqi) },
    signers,
    ...(o.send === false ? { send: false } : {}),
    metadata: { tawqi_trigger: 'true' },
  };
  return (await f.tawqi.signatureRequests.create(body)) as Request;
}

/** The first signer's page, opened and viewed (signer.viewed; signature_request.viewed on a first view). */
async function viewed(r: Request, index = 0): Promise<SignerPage> {
  const url = r.signers[index]?.signing_url;
  if (!url) throw new Error(`The request ${r.id} has no signing link for signer ${index + 1}.`);
  const page = await SignerPage.open(url);
  await page.call('POST', '/view');
  return page;
}

/** The test helpers, acting as the request's first signer. */
const firstSigner = (r: Request): string => r.signers[0]!.id;

async function identity(f: Fixture, decision: 'approve' | 'decline'): Promise<Request> {
  const r = await createRequest(f, { requireIdentity: true });
  return (await f.tawqi.testHelpers.signers.decideIdentity(firstSigner(r), { decision })) as Request;
}

export interface Scenario {
  /** What the trigger makes, shown by --list. */
  does: string;
  /** Whether it uses the test helpers (the steps behind the signer's one-time code). */
  helpers: boolean;
  run(f: Fixture): Promise<Request>;
}

const created: Scenario = { does: 'a draft request', helpers: false, run: (f) => createRequest(f, { send: false }) };
const sent: Scenario = { does: 'a request, sent', helpers: false, run: (f) => createRequest(f) };
const view: Scenario = {
  does: 'a request whose signer opens the page',
  helpers: false,
  run: async (f) => {
    const r = await createRequest(f);
    await viewed(r);
    return r;
  },
};
const decline: Scenario = {
  does: 'a request whose signer declines',
  helpers: false,
  run: async (f) => {
    const r = await createRequest(f);
    const page = await viewed(r);
    await page.call('POST', '/decline', { reason: 'Declined by tawqi trigger' });
    return r;
  },
};
const cancel: Scenario = {
  does: 'a request, sent then canceled',
  helpers: false,
  run: async (f) => {
    const r = await createRequest(f);
    await f.tawqi.signatureRequests.cancel(r.id);
    return r;
  },
};
const otp: Scenario = {
  does: 'a request whose signer enters the code',
  helpers: true,
  run: async (f) => {
    const r = await createRequest(f);
    return (await f.tawqi.testHelpers.signers.verifyOtp(firstSigner(r))) as Request;
  },
};
const complete: Scenario = {
  does: 'a one-signer request, signed',
  helpers: true,
  run: async (f) => {
    const r = await createRequest(f);
    return (await f.tawqi.testHelpers.signers.sign(firstSigner(r))) as Request;
  },
};
const partial: Scenario = {
  does: 'a two-signer request, signed by the first',
  helpers: true,
  run: async (f) => {
    const r = await createRequest(f, { signers: 2 });
    return (await f.tawqi.testHelpers.signers.sign(firstSigner(r))) as Request;
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
    helpers: true,
    run: (f) => identity(f, 'approve'),
  },
  'signer.identity_declined': {
    does: 'a request with identity, declined in the simulation',
    helpers: true,
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
