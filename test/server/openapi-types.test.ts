/**
 * A client generated from the served OpenAPI document (openapi-typescript) knows the objects:
 * a small program reading status, reference and signers[0].signing_url of a created request
 * typechecks against the generated types, and one reading a misspelt field does not (so the types
 * are not unknown or any).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startTestServer, type TestServer } from '../support/server.js';

const CREATED = `paths['/signature_requests']['post']['responses'][201]['content']['application/json']`;

/** Reads what a client of POST /signature_requests needs; must typecheck. */
const READER = `import type { components, paths } from './api.js';

type Created = ${CREATED};
type Status = 'draft' | 'sent' | 'viewed' | 'partially_signed' | 'completed' | 'declined' | 'expired' | 'canceled';

export function read(created: Created): { status: Status; reference: string | null; url: string | null } {
  const status: Status = created.status;
  const reference: string | null = created.reference;
  const first = created.signers[0];
  const url: string | null = first ? first.signing_url : null;
  // @ts-expect-error -- a signature request has no signing_url of its own
  void created.signing_url;
  // @ts-expect-error -- status is a string enum, not a number
  const wrong: number = created.status;
  void wrong;
  return { status, reference, url };
}

export function code(e: components['schemas']['Error']): string {
  return e.error.code;
}
`;

/** The same read with a misspelt field: must not typecheck. */
const MISSPELT = `import type { paths } from './api.js';

type Created = ${CREATED};
export const reference = (created: Created): string | null => created.refrence;
`;

function diagnostics(dir: string, file: string): string[] {
  const program = ts.createProgram([path.join(dir, file)], {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('types generated from the document (openapi-typescript)', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-openapi-ts-'));
    const served = await s.call('GET', '/openapi.json');
    assert.equal(served.status, 200);
    const generated = astToString(await openapiTS(served.body, { silent: true }));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(dir, 'api.ts'), generated);
    writeFileSync(path.join(dir, 'reader.ts'), READER);
    writeFileSync(path.join(dir, 'misspelt.ts'), MISSPELT);
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a program reading status, reference and signers[0].signing_url of a created request typechecks', () => {
    assert.deepEqual(diagnostics(dir, 'reader.ts'), []);
  });

  test('a program reading a field that does not exist does not', () => {
    const errors = diagnostics(dir, 'misspelt.ts');
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0]!, /refrence/);
  });
});
