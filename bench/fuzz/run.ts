/**
 * The long run of the generated API fuzzing (issue 17, point 1; the fixed-seed short run is
 * test/server/fuzz-api.test.ts, same cases and checks: test/support/fuzzHarness.ts). Not a test:
 * it prints what it ran and exits 1 on a failure, with the seed and path that replay it.
 *
 *   npm run bench -- fuzz
 *   FUZZ_RUNS=20000 FUZZ_SEED=42 BENCH_DATABASE=postgres npm run bench -- fuzz
 *   FUZZ_SEED=42 FUZZ_PATH=1234:5 npm run bench -- fuzz      # replay a failure (shrunk case first)
 *
 * Environment: FUZZ_RUNS (cases, default 20000), FUZZ_SEED (default: a random one, printed),
 * FUZZ_PATH (fast-check's counterexample path, to replay), BENCH_DATABASE (sqlite, the default, or
 * postgres: a throwaway cluster for the run, as the tests use).
 */
import { loadavg } from 'node:os';
import fc from 'fast-check';

const runs = Number(process.env.FUZZ_RUNS ?? 20000);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const path = process.env.FUZZ_PATH;
// The test support reads the engine when it loads: set it first, then load it.
process.env.TAWQI_TEST_DATABASE = process.env.BENCH_DATABASE ?? 'sqlite';
const { answerSummary, apiProperty, FUZZ_SERVER_ENV, fuzzWorld, invariantProblem, unreached } =
  await import('../../test/support/fuzzHarness.js');
const { startTestServer } = await import('../../test/support/server.js');

const load = () => loadavg()[0]!.toFixed(2);
console.error(
  `fuzz: ${runs} cases, seed ${seed}${path ? `, path ${path}` : ''}, engine ${process.env.TAWQI_TEST_DATABASE}, load ${load()}`,
);
const server = await startTestServer(FUZZ_SERVER_ENV);
let failed = true;
try {
  const fuzzed = await fuzzWorld(server);
  const started = performance.now();
  const details = await fc.check(apiProperty(fuzzed), { seed, numRuns: runs, path, endOnFailure: false, includeErrorInReport: true });
  const seconds = (performance.now() - started) / 1000;
  for (const line of answerSummary(fuzzed)) console.error(`  ${line}`);
  const invariant = await invariantProblem(fuzzed);
  failed = details.failed || invariant !== null;
  console.log(
    JSON.stringify({
      benchmark: 'fuzz',
      engine: process.env.TAWQI_TEST_DATABASE,
      seed,
      runs: details.numRuns,
      requests_sent: fuzzed.cases,
      operations: fuzzed.answers.size,
      unreached: unreached(fuzzed),
      seconds: Number(seconds.toFixed(1)),
      cases_per_second: Number((fuzzed.cases / seconds).toFixed(1)),
      loadavg_1m: Number(load()),
      failed: details.failed,
      invariant,
    }),
  );
  if (details.failed) {
    console.error(fc.defaultReportMessage(details));
    console.error(`replay: FUZZ_SEED=${seed} FUZZ_PATH=${details.counterexamplePath} npm run bench -- fuzz`);
  }
} finally {
  await server.close();
}
process.exit(failed ? 1 : 0);
