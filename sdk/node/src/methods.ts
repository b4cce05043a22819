import type { OperationId } from './generated/operations.js';

/**
 * Every operation of the OpenAPI document → the client method that calls it (the docs page shows
 * these; test/sdk checks each against the served document and the request the method sends).
 * Typed as a record over every operationId: an operation added to the server without a method
 * here fails to compile once the types are generated again.
 */
export const CLIENT_METHODS = {
  get: 'service.retrieve',
  getUsage: 'usage.retrieve',
  getBalance: 'balance.retrieve',
  getTemplates: 'templates.list',
  postTemplates: 'templates.create',
  getTemplatesId: 'templates.retrieve',
  postSignatureRequests: 'signatureRequests.create',
  getSignatureRequests: 'signatureRequests.list',
  getSignatureRequestsId: 'signatureRequests.retrieve',
  postSignatureRequestsIdSend: 'signatureRequests.send',
  postSignatureRequestsIdCancel: 'signatureRequests.cancel',
  postSignatureRequestsIdReminders: 'signatureRequests.remind',
  postSignatureRequestsBulk: 'signatureRequests.createBulk',
  getSignatureRequestsIdDownload: 'signatureRequests.retrieveDownload',
  getSignatureRequestsIdDownloadPdf: 'signatureRequests.downloadPdf',
  getSignatureRequestsIdDocument: 'signatureRequests.retrieveDocument',
  getSignatureRequestsIdCertificate: 'signatureRequests.retrieveCertificate',
  getSignatureRequestsIdEvidence: 'signatureRequests.retrieveEvidence',
  getSigners: 'signers.list',
  getSignersId: 'signers.retrieve',
  postSignersIdSigningSession: 'signers.createSigningSession',
  postSignersIdIdentityMatch: 'signers.decideIdentityMatch',
  getEvents: 'events.list',
  getEventsId: 'events.retrieve',
  postEventsIdRedeliver: 'events.redeliver',
  getEventsIdDeliveries: 'events.listDeliveries',
  getVerificationsReference: 'verifications.retrieve',
  getIdentityVerificationsId: 'identityVerifications.retrieve',
  postWebhookEndpoints: 'webhookEndpoints.create',
  getWebhookEndpoints: 'webhookEndpoints.list',
  getWebhookEndpointsId: 'webhookEndpoints.retrieve',
  postWebhookEndpointsId: 'webhookEndpoints.update',
  deleteWebhookEndpointsId: 'webhookEndpoints.del',
  getFlows: 'flows.list',
  getFlowsId: 'flows.retrieve',
  postSessions: 'sessions.create',
  getSessions: 'sessions.list',
  getSessionsId: 'sessions.retrieve',
  postTestHelpersSignersIdVerifyOtp: 'testHelpers.signers.verifyOtp',
  postTestHelpersSignersIdIdentity: 'testHelpers.signers.decideIdentity',
  postTestHelpersSignersIdSign: 'testHelpers.signers.sign',
} as const satisfies Record<OperationId, `${string}.${string}`>;
