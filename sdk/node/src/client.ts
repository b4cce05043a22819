import { HttpClient, type TawqiOptions } from './http.js';
import {
  BalanceResource,
  EventsResource,
  FlowsResource,
  IdentityVerificationsResource,
  ServiceResource,
  SessionsResource,
  SignatureRequestsResource,
  SignersResource,
  TemplatesResource,
  TestHelpers,
  UsageResource,
  VerificationsResource,
  WebhookEndpointsResource,
} from './resources.js';
import { webhooks } from './webhooks.js';

/**
 * The Tawqi API client:
 *
 *   const tawqi = new Tawqi(process.env.TAWQI_SECRET_KEY, { baseUrl: 'https://sign.example.com' });
 *   const request = await tawqi.signatureRequests.create({ … });
 *   for await (const r of tawqi.signatureRequests.list({ status: 'sent' })) { … }
 */
export class Tawqi {
  /** Webhook signature verification (needs no key): Tawqi.webhooks.constructEvent(rawBody, header, secret). */
  static readonly webhooks = webhooks;
  readonly webhooks = webhooks;

  readonly service: ServiceResource;
  readonly usage: UsageResource;
  readonly balance: BalanceResource;
  readonly templates: TemplatesResource;
  readonly signatureRequests: SignatureRequestsResource;
  readonly signers: SignersResource;
  readonly events: EventsResource;
  readonly verifications: VerificationsResource;
  readonly identityVerifications: IdentityVerificationsResource;
  readonly webhookEndpoints: WebhookEndpointsResource;
  readonly flows: FlowsResource;
  readonly sessions: SessionsResource;
  /** Test mode only: act as a test signer (POST /test_helpers/…). */
  readonly testHelpers: TestHelpers;

  constructor(apiKey: string | undefined, options: TawqiOptions = {}) {
    const http = new HttpClient(apiKey ?? '', options);
    this.service = new ServiceResource(http);
    this.usage = new UsageResource(http);
    this.balance = new BalanceResource(http);
    this.templates = new TemplatesResource(http);
    this.signatureRequests = new SignatureRequestsResource(http);
    this.signers = new SignersResource(http);
    this.events = new EventsResource(http);
    this.verifications = new VerificationsResource(http);
    this.identityVerifications = new IdentityVerificationsResource(http);
    this.webhookEndpoints = new WebhookEndpointsResource(http);
    this.flows = new FlowsResource(http);
    this.sessions = new SessionsResource(http);
    this.testHelpers = new TestHelpers(http);
  }
}
