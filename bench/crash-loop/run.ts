/**
 * The crash loop at any length (issue 17, point 3): `CRASH_CYCLES=200 CRASH_SEED=42 npm run bench --
 * crash-loop` (defaults 100 cycles, a seed from the clock, printed); on PostgreSQL with
 * TAWQI_TEST_DATABASE=postgres (a throwaway cluster is started). Each cycle: a burst of mixed work,
 * SIGKILL at a random moment, a restart on the same data and the invariant check; at the end the
 * retries of every key, the drain and the seal, hash and delivery checks (test/support/crashLoop.ts).
 */
import { TEST_DATABASE } from '../../test/support/database.js';
import { CrashLoop, seededRandom, type CycleReport } from '../../test/support/crashLoop.js';

const cycles = Number(process.env.CRASH_CYCLES ?? 100);
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
console.log(`crash loop on ${TEST_DATABASE}: ${cycles} cycles, seed ${seed}`);

const random = seededRandom(seed);
const loop = await CrashLoop.create();
const started = Date.now();
const total: Omit<CycleReport, 'killAfterMs'> = { creates: 0, signings: 0, cancels: 0 };
try {
  for (let i = 1; i <= cycles; i++) {
    const r = await loop.cycle(random);
    await loop.checkInvariants();
    total.creates += r.creates;
    total.signings += r.signings;
    total.cancels += r.cancels;
    if (i % 10 === 0 || i === cycles) console.log(`cycle ${i}: kill after ${r.killAfterMs} ms; answered so far ${JSON.stringify(total)}`);
  }
  const final = await loop.finalCheck();
  console.log(
    `survived ${cycles} kill -9 cycles in ${Math.round((Date.now() - started) / 1000)} s: ${loop.attempted.size} creates sent, ` +
      `${loop.acked.size} requests each stored once and charged once, ${final.completed} completed and sealed (PDF hashes match), ` +
      `${final.events} events all delivered (${final.deliveries} deliveries received), no job stuck`,
  );
} finally {
  await loop.close();
}
