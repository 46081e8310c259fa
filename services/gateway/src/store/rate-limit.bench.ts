// make bench: what a rate-limit check costs (decisions 0005 and 0025), on a fresh gateway
// database through the limiter's own pool: a busy workspace (scale, 6,000 a minute) checked by
// one caller and by sixteen at once, where batches answer from memory, and quiet workspaces,
// each check the first of its workspace (one round trip each). Three rounds; the last is kept.
//   node services/gateway/dist/store/rate-limit.bench.js   (or make bench)
//   BENCH_CHECKS   checks per scenario (3000)
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { freshServiceDatabase, goal, printGoals } from '@wap/testkit';
import { RateLimiter, rateLimitPool } from './rate-limit.js';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 3000);

interface Figures {
  mean_us: number;
  p50_us: number;
  p99_us: number;
}

function figures(samples: number[]): Figures {
  const sorted = samples.toSorted((a, b) => a - b);
  const at = (q: number) =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0) * 1000);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { mean_us: Math.round(mean * 1000), p50_us: at(0.5), p99_us: at(0.99) };
}

async function each(n: number, check: () => Promise<unknown>): Promise<Figures> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await check();
    samples.push(performance.now() - started);
  }
  return figures(samples);
}

/** Wall time per check with `width` callers at once, µs. */
async function together(n: number, width: number, check: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let left = n;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (left-- > 0) await check();
    }),
  );
  return Math.round(((performance.now() - started) / n) * 1000);
}

async function main(): Promise<void> {
  const database = await freshServiceDatabase(path.resolve(__dirname, '..', '..'));
  const pool = rateLimitPool(database.url);
  let trips = 0;
  const query = pool.query.bind(pool);
  pool.query = ((...args: Parameters<typeof query>) => {
    trips++;
    return query(...args);
  }) as typeof pool.query;
  const limiter = new RateLimiter(pool);
  try {
    let last: { busy: Figures; busyTrips: number; quiet: Figures; sixteen_us: number } | undefined;
    for (let round = 1; round <= 3; round++) {
      const busyWorkspace = randomUUID();
      trips = 0;
      const busy = await each(CHECKS, () => limiter.admit(busyWorkspace, 6_000));
      const busyTrips = trips;
      const quiet = await each(CHECKS, () => limiter.admit(randomUUID(), 120));
      const crowded = randomUUID();
      const sixteen_us = await together(CHECKS, 16, () => limiter.admit(crowded, 6_000));
      last = { busy, busyTrips, quiet, sixteen_us };
      console.log(
        `round ${round}: busy mean ${busy.mean_us} µs p99 ${busy.p99_us} µs, ${busyTrips} round trips in ${CHECKS}; ` +
          `quiet p50 ${quiet.p50_us} µs p99 ${quiet.p99_us} µs; 16 callers ${sixteen_us} µs a check`,
      );
    }
    if (!last) return;
    const goals = [
      goal('rate-limit check, busy workspace, mean', last.busy.mean_us, '<=', 50, 'µs'),
      goal(
        'rate-limit round trips per 1,000 busy checks',
        Math.round((last.busyTrips / CHECKS) * 1000),
        '<=',
        50,
        'trips',
      ),
      goal("rate-limit check, a quiet workspace's first, p50", last.quiet.p50_us, '<=', 1_000, 'µs'),
    ];
    printGoals(goals);
    console.log(JSON.stringify({ bench: 'gateway.rate-limit', checks: CHECKS, ...last, goals }));
  } finally {
    await pool.end();
    await database.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
