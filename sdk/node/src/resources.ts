/**
 * One class per resource, one method per operation of the OpenAPI document, Stripe-style
 * (`tawqi.signatureRequests.create(params, { idempotencyKey })`). Each method names its operation
 * by operationId; CLIENT_METHODS (methods.ts) lists them all, and its type requires every
 * operation of the document, so an operation without a method fails to compile.
 */
import type { HttpClient, RequestOptions } from './http.js';
import type { OperationId } from './generated/operations.js';
import { AutoPaginatingList } from './pagination.js';
import type { BodyOf, ItemOf, ListPage, QueryOf, Returned, WithLastResponse } from './types.js';

type ListQuery<K extends OperationId> = Omit<QueryOf<K>, 'starting_after'> & { starting_after?: string };

abstract class Resource {
  constructor(private readonly http: HttpClient) {}

  protected call<K extends OperationId>(
    operationId: K,
    input: { path?: Record<string, string>; query?: object; body?: unknown } = {},
    options?: RequestOptions,
  ): Promise<Returned<K>> {
    return this.http.call(operationId, input as { query?: Record<string, unknown> }, options) as Promise<Returned<K>>;
  }

  /** A list operation as an auto-paginating list: each page asks for the next with starting_after. */
  protected paginate<K extends OperationId>(
    operationId: K,
    query: object = {},
    path?: Record<string, string>,
    options?: RequestOptions,
  ): AutoPaginatingList<ItemOf<K>> {
    const base = query as { starting_after?: string };
    return new AutoPaginatingList<ItemOf<K>>(
      (startingAfter) =>
        this.http.call(operationId, { path, query: { ...base, starting_after: startingAfter ?? base.starting_after } }, options) as Promise<
          ListPage<ItemOf<K>> & WithLastResponse
        >,
    );
  }
}

/** GET / — the service, the version that answered, the key's account and mode. */
export class ServiceResource extends Resource {
  retrieve = (options?: RequestOptions) => this.call('get', {}, options);
}

export class UsageResource extends Resource {
  retrieve = (options?: RequestOptions) => this.call('getUsage', {}, options);
}

export class BalanceResource extends Resource {
  retrieve = (options?: RequestOptions) => this.call('getBalance', {}, options);
}

export class TemplatesResource extends Resource {
  create = (params: BodyOf<'postTemplates'>, options?: RequestOptions) => this.call('postTemplates', { body: params }, options);
  retrieve = (id: string, options?: RequestOptions) => this.call('getTemplatesId', { path: { id } }, options);
  list = (params: ListQuery<'getTemplates'> = {}, options?: RequestOptions) => this.paginate('getTemplates', params, undefined, options);
}

export class SignatureRequestsResource extends Resource {
  create = (params: BodyOf<'postSignatureRequests'>, options?: RequestOptions) =>
    this.call('postSignatureRequests', { body: params }, options);
  retrieve = (id: string, options?: RequestOptions) => this.call('getSignatureRequestsId', { path: { id } }, options);
  list = (params: ListQuery<'getSignatureRequests'> = {}, options?: RequestOptions) =>
    this.paginate('getSignatureRequests', params, undefined, options);
  send = (id: string, options?: RequestOptions) => this.call('postSignatureRequestsIdSend', { path: { id } }, options);
  cancel = (id: string, options?: RequestOptions) => this.call('postSignatureRequestsIdCancel', { path: { id } }, options);
  remind = (id: string, params: BodyOf<'postSignatureRequestsIdReminders'> = {}, options?: RequestOptions) =>
    this.call('postSignatureRequestsIdReminders', { path: { id }, body: params }, options);
  /** One contract to many recipients, all or nothing (POST /signature_requests/bulk). */
  createBulk = (params: BodyOf<'postSignatureRequestsBulk'>, options?: RequestOptions) =>
    this.call('postSignatureRequestsBulk', { body: params }, options);
  /** Where the final PDF stands: pdf_status, pdf_url, pdf_sha256, reference. */
  retrieveDownload = (id: string, options?: RequestOptions) => this.call('getSignatureRequestsIdDownload', { path: { id } }, options);
  /** The final PDF's bytes (409 pdf_not_ready while it is being made). */
  downloadPdf = (id: string, options?: RequestOptions) => this.call('getSignatureRequestsIdDownloadPdf', { path: { id } }, options);
  /** The final document as HTML. */
  retrieveDocument = (id: string, options?: RequestOptions) => this.call('getSignatureRequestsIdDocument', { path: { id } }, options);
  /** The completion certificate alone, PDF bytes. */
  retrieveCertificate = (id: string, options?: RequestOptions) => this.call('getSignatureRequestsIdCertificate', { path: { id } }, options);
  retrieveEvidence = (id: string, options?: RequestOptions) => this.call('getSignatureRequestsIdEvidence', { path: { id } }, options);
}

export class SignersResource extends Resource {
  retrieve = (id: string, options?: RequestOptions) => this.call('getSignersId', { path: { id } }, options);
  list = (params: ListQuery<'getSigners'> = {}, options?: RequestOptions) => this.paginate('getSigners', params, undefined, options);
  createSigningSession = (id: string, params: BodyOf<'postSignersIdSigningSession'>, options?: RequestOptions) =>
    this.call('postSignersIdSigningSession', { path: { id }, body: params }, options);
  /** Approve or reject a name held for review (signer.identity_match_hold). */
  decideIdentityMatch = (id: string, params: BodyOf<'postSignersIdIdentityMatch'>, options?: RequestOptions) =>
    this.call('postSignersIdIdentityMatch', { path: { id }, body: params }, options);
}

export class EventsResource extends Resource {
  retrieve = (id: string, options?: RequestOptions) => this.call('getEventsId', { path: { id } }, options);
  list = (params: ListQuery<'getEvents'> = {}, options?: RequestOptions) => this.paginate('getEvents', params, undefined, options);
  redeliver = (id: string, params: BodyOf<'postEventsIdRedeliver'> = {}, options?: RequestOptions) =>
    this.call('postEventsIdRedeliver', { path: { id }, body: params }, options);
  listDeliveries = (id: string, params: ListQuery<'getEventsIdDeliveries'> = {}) => this.paginate('getEventsIdDeliveries', params, { id });
}

export class VerificationsResource extends Resource {
  /** The public verification of a sealed document (no key needed on the server's side). */
  retrieve = (reference: string, options?: RequestOptions) => this.call('getVerificationsReference', { path: { reference } }, options);
}

export class IdentityVerificationsResource extends Resource {
  retrieve = (id: string, options?: RequestOptions) => this.call('getIdentityVerificationsId', { path: { id } }, options);
}

export class WebhookEndpointsResource extends Resource {
  /** The answer carries the whsec_ secret, once. */
  create = (params: BodyOf<'postWebhookEndpoints'>, options?: RequestOptions) =>
    this.call('postWebhookEndpoints', { body: params }, options);
  retrieve = (id: string, options?: RequestOptions) => this.call('getWebhookEndpointsId', { path: { id } }, options);
  update = (id: string, params: BodyOf<'postWebhookEndpointsId'>, options?: RequestOptions) =>
    this.call('postWebhookEndpointsId', { path: { id }, body: params }, options);
  list = (params: ListQuery<'getWebhookEndpoints'> = {}, options?: RequestOptions) =>
    this.paginate('getWebhookEndpoints', params, undefined, options);
  del = (id: string, options?: RequestOptions) => this.call('deleteWebhookEndpointsId', { path: { id } }, options);
}

export class FlowsResource extends Resource {
  retrieve = (id: string, options?: RequestOptions) => this.call('getFlowsId', { path: { id } }, options);
  list = (params: ListQuery<'getFlows'> = {}, options?: RequestOptions) => this.paginate('getFlows', params, undefined, options);
}

export class SessionsResource extends Resource {
  create = (params: BodyOf<'postSessions'>, options?: RequestOptions) => this.call('postSessions', { body: params }, options);
  retrieve = (id: string, options?: RequestOptions) => this.call('getSessionsId', { path: { id } }, options);
  list = (params: ListQuery<'getSessions'> = {}, options?: RequestOptions) => this.paginate('getSessions', params, undefined, options);
}

/**
 * Test mode only (a secret test key): act as a test signer without the code sent to their inbox,
 * Stripe's test helpers for Tawqi. Each returns the signature request after the step.
 */
export class TestHelperSignersResource extends Resource {
  /** The signer opens the page and enters the right one-time code (signer.viewed, signer.otp_verified). */
  verifyOtp = (id: string, options?: RequestOptions) => this.call('postTestHelpersSignersIdVerifyOtp', { path: { id } }, options);
  /** The code step if due, then the identity simulation's decision (signer.identity_verified or signer.identity_declined). */
  decideIdentity = (id: string, params: BodyOf<'postTestHelpersSignersIdIdentity'>, options?: RequestOptions) =>
    this.call('postTestHelpersSignersIdIdentity', { path: { id }, body: params }, options);
  /** Every step still due, then a drawn signature (signer.signed, and the request's completion and seal when last). */
  sign = (id: string, options?: RequestOptions) => this.call('postTestHelpersSignersIdSign', { path: { id } }, options);
}

/** `tawqi.testHelpers.signers.sign(id)`: the test helpers, grouped by the object they act on. */
export class TestHelpers {
  readonly signers: TestHelperSignersResource;
  constructor(http: HttpClient) {
    this.signers = new TestHelperSignersResource(http);
  }
}
