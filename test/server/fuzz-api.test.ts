/**
 * Generated fuzzing of every API operation (issue 17, point 1): requests derived from the served
 * OpenAPI document's schemas — valid ones, and invalid ones made by breaking them — with ids, headers,
 * sizes and encodings varied, sent to a real server over HTTP (support/fuzzCases.ts,
 * support/fuzzHarness.ts). Every answer must be documented for its operation, never a 500, errors in
 * the envelope with the request id, refusals where the case must be refused; after every case the
 * rows the API created match its 2xx answers and balances match the ledger.
 *
 * A fixed seed, so the run is the same in CI on both engines; the longer run with any seed is
 * `npm run bench -- fuzz` (bench/fuzz/run.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { updateAccount } from '../../server/src/store/accounts.js';
import { TEST_DATABASE } from '../support/database.js';
import {
  answerSummary,
  apiProperty,
  FUZZ_SERVER_ENV,
  fuzzWorld,
  invariantProblem,
  unreached,
  type Fuzzed,
} from '../support/fuzzHarness.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SEED = 20261128;
const RUNS = 1000;

describe(`generated fuzzing of the API (${TEST_DATABASE})`, () => {
  let s: TestServer;
  let f: Fuzzed;
  before(async () => {
    s = await startTestServer(FUZZ_SERVER_ENV);
    f = await fuzzWorld(s);
  });
  after(() => s.close());

  test(`${RUNS} generated requests (seed ${SEED}): documented answers, no 500, no partial write`, async (t) => {
    await fc.assert(apiProperty(f), { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true });
    t.diagnostic(`${f.cases} cases sent (seed ${SEED}, ${RUNS} runs) on ${TEST_DATABASE}`);
    for (const line of answerSummary(f)) t.diagnostic(line);
    assert.deepEqual(unreached(f), [], 'every operation of the document was fuzzed');
    assert.equal(await invariantProblem(f), null);
  });

  test('the checks are not vacuous: a row no answer accounts for, or a balance moved beside the ledger, is caught', async () => {
    // A template created outside the fuzzed answers (through call(), which the tally does not see).
    const extra = await s.call('POST', '/templates', { key: f.account.keys.secret_test, body: { title: 'Outside the tally', body: 'x' } });
    assert.equal(extra.status, 201, extra.text);
    assert.match((await invariantProblem(f)) ?? '', /^templates: /);
    f.tally.templates++;
    assert.equal(await invariantProblem(f), null);
    await updateAccount(s.ctx.store.db, f.account.id, { balance_sends: 1 });
    assert.match((await invariantProblem(f)) ?? '', /balance 1 sends/);
  });
});
