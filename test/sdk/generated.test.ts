/**
 * The client's types are generated from the OpenAPI document (scripts/sdk-types.ts), which is built
 * from the zod schemas of @tawqi/shared/api: the committed files must equal a fresh generation (so a
 * change to a schema or route without `npm run generate -w @tawqi/node` fails here), and the
 * objects' types are the very types of those schemas (checked by the compiler: `npm run typecheck`
 * compiles this file, and a difference either way fails it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type * as Sdk from '@tawqi/node';
import type * as Api from '@tawqi/shared/api';
import type { z } from 'zod';
import { GENERATED_DIR, generateSdkFiles } from '../../scripts/sdk-types.js';

/** true only when A and B are the same type (each assignable to the other, checked without distribution). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(): T => true as T;

// The objects a client reads are the server's own schemas' output types.
same<Same<Sdk.SignatureRequest, z.output<typeof Api.signatureRequestSchema>>>();
same<Same<Sdk.Signer, z.output<typeof Api.signerSchema>>>();
same<Same<Sdk.Event, z.output<typeof Api.eventSchema>>>();
same<Same<Sdk.Session, z.output<typeof Api.sessionSchema>>>();
same<Same<Sdk.WebhookEndpoint, z.output<typeof Api.webhookEndpointSchema>>>();
same<Same<Sdk.Template, z.output<typeof Api.templateSchema>>>();
same<Same<Sdk.Usage, z.output<typeof Api.usageSchema>>>();
same<Same<Sdk.ErrorBody, z.output<typeof Api.errorSchema>['error']>>();
// A method's result is its operation's success body.
same<Same<Awaited<ReturnType<Sdk.Tawqi['signatureRequests']['retrieve']>>, Sdk.SignatureRequest & Sdk.WithLastResponse>>();
same<Same<Awaited<ReturnType<Sdk.Tawqi['signatureRequests']['downloadPdf']>>, Uint8Array>>();

describe('generated types of @tawqi/node', () => {
  test('sdk/node/src/generated/ is what the current document generates (npm run generate -w @tawqi/node)', async () => {
    for (const [name, text] of Object.entries(await generateSdkFiles())) {
      assert.equal(readFileSync(`${GENERATED_DIR}${name}`, 'utf8'), text, `sdk/node/src/generated/${name} is stale`);
    }
  });
});
