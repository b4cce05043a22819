/**
 * The types of the API's objects, requests and answers, read from the types generated from the
 * OpenAPI document (generated/openapi.ts): the document is built from the zod schemas of
 * @tawqi/shared/api and the server's input schemas, so these are the server's own shapes.
 */
import type { components, operations } from './generated/openapi.js';
import type { OPERATIONS, OperationId } from './generated/operations.js';
import type { ResponseInfo } from './http.js';

export type Schemas = components['schemas'];

export type ServiceInfo = Schemas['ServiceInfo'];
export type Usage = Schemas['Usage'];
export type Template = Schemas['Template'];
export type SignatureRequest = Schemas['SignatureRequest'];
export type Signer = Schemas['Signer'];
export type BulkSend = Schemas['BulkSend'];
export type SigningSession = Schemas['SigningSession'];
export type Download = Schemas['Download'];
export type EvidenceRecord = Schemas['EvidenceRecord'];
export type Verification = Schemas['Verification'];
export type IdentityVerification = Schemas['IdentityVerification'];
export type Workflow = Schemas['Workflow'];
export type Session = Schemas['Session'];
export type Event = Schemas['Event'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointCreated = Schemas['WebhookEndpointCreated'];
export type WebhookEndpointDeleted = Schemas['WebhookEndpointDeleted'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

/** A page of a list: `{object: 'list', data, has_more, next_cursor}`. */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

type Op<K extends OperationId> = operations[K];

/** The JSON body an operation takes. */
export type BodyOf<K extends OperationId> =
  Op<K> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Op<K> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B
      : never;

/** The query parameters an operation takes (the language is the client's `locale`). */
export type QueryOf<K extends OperationId> = Omit<NonNullable<Op<K>['parameters']['query']>, 'lang'>;

type StatusOf<K extends OperationId> = (typeof OPERATIONS)[K]['status'];
type Success<K extends OperationId> = StatusOf<K> extends keyof Op<K>['responses'] ? Op<K>['responses'][StatusOf<K>] : never;

/** What an operation answers: the JSON object, the PDF's bytes, or the HTML text. */
export type ResultOf<K extends OperationId> = (typeof OPERATIONS)[K]['contentType'] extends 'application/json'
  ? Success<K> extends { content: { 'application/json': infer R } }
    ? R
    : never
  : (typeof OPERATIONS)[K]['contentType'] extends 'application/pdf'
    ? Uint8Array
    : string;

/** The item type of a list operation's pages. */
export type ItemOf<K extends OperationId> = ResultOf<K> extends { object: 'list'; data: (infer T)[] } ? T : never;

/** Set on every object a method returns (not enumerable: JSON.stringify leaves it out). */
export interface WithLastResponse {
  readonly lastResponse: ResponseInfo;
}

/** What a method resolves with: the object (with lastResponse), or the PDF's bytes or the HTML text. */
export type Returned<K extends OperationId> = ResultOf<K> extends string | Uint8Array ? ResultOf<K> : ResultOf<K> & WithLastResponse;
