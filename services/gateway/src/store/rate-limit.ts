import { ApiError } from '@wap/errors';
import { PLANS, type PlanName } from '@wap/plans';
import pg from 'pg';

const WINDOW_MS = 60_000;

/** How long requests taken from the shared budget may be spent by this replica. */
export const LEASE_MS = 1_000;
/** A batch is at most this share of a minute's limit (1 for free, 60 for scale). */
const BATCH_DIVISOR = 100;

interface Take {
  granted: number;
  remaining: number;
  reset_ms: number;
}

/** What a workspace's budget allows this replica, until `expiresAt`. */
interface Lease {
  /** Requests this replica may still admit without asking Postgres. */
  tokens: number;
  /** Requests the shared budget had left when the lease was taken, the lease excluded. */
  remaining: number;
  /** Taken from the lease so far; sizes the next batch. */
  used: number;
  size: number;
  expiresAt: number;
  /** When the window ends (granted), or when one more request may pass (refused). */
  resetAt: number;
}

export interface Admission {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** Connections for the limiter alone, with asynchronous commit: no WAL flush wait per request. */
export function rateLimitPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 6, options: '-c synchronous_commit=off' });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The plan's requests per minute per workspace, counted in the gateway's
 * Postgres so every replica shares one budget (docs/decisions/0005). A
 * replica takes requests from the budget in batches sized to what the
 * workspace used of its last batch (1 when quiet; at most 1% of the limit),
 * spends them for up to a second, and lets the rest lapse. So a busy
 * workspace costs a round trip a batch, the budget is never exceeded, and
 * what a replica can strand is one batch a second. A refusal is remembered
 * until it could change, so a client hammering through its 429s costs no
 * round trips either.
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  /** The one take in flight per workspace; requests arriving meanwhile wait for it. */
  private readonly taking = new Map<string, Promise<Lease>>();
  private takes = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
  ) {}

  async admit(workspaceId: string, limit: number): Promise<Admission> {
    for (;;) {
      const lease = this.leases.get(workspaceId);
      const now = this.now();
      if (lease && now < lease.expiresAt) {
        if (lease.tokens > 0) {
          lease.tokens--;
          lease.used++;
          return this.answer(true, limit, lease, now);
        }
        // A refusal stands until the budget could admit one more.
        if (lease.size === 0 && now < lease.resetAt) return this.answer(false, limit, lease, now);
      }
      await this.take(workspaceId, limit, lease);
    }
  }

  private answer(allowed: boolean, limit: number, lease: Lease, now: number): Admission {
    return {
      allowed,
      limit,
      remaining: allowed ? lease.remaining + lease.tokens : 0,
      resetSeconds: Math.max(1, Math.ceil((lease.resetAt - now) / 1000)),
    };
  }

  private take(workspaceId: string, limit: number, last: Lease | undefined): Promise<Lease> {
    const pending = this.taking.get(workspaceId);
    if (pending) return pending;
    if (++this.takes % 1000 === 0) this.forgetLapsed();
    // Grow the batch while the last one ran out; shrink it to what was used when it lapsed.
    const demand = last ? (last.tokens === 0 && last.size > 0 ? last.size * 2 : last.used) : 1;
    const want = Math.min(Math.max(1, Math.floor(limit / BATCH_DIVISOR)), Math.max(1, demand));
    const taking = this.pool
      .query<Take>({
        name: 'rate_limit_take_batch',
        text: 'SELECT * FROM rate_limit_take_batch($1::uuid, $2, $3, $4)',
        values: [workspaceId, limit, WINDOW_MS, want],
      })
      .then(({ rows }) => {
        const take = rows[0];
        if (!take) throw new Error('rate_limit_take_batch returned no row');
        const now = this.now();
        const lease: Lease = {
          tokens: take.granted,
          remaining: take.remaining,
          used: 0,
          size: take.granted,
          expiresAt: now + Math.min(LEASE_MS, take.reset_ms),
          resetAt: now + take.reset_ms,
        };
        this.leases.set(workspaceId, lease);
        return lease;
      })
      .finally(() => this.taking.delete(workspaceId));
    this.taking.set(workspaceId, taking);
    return taking;
  }

  /** Drops leases that can no longer answer anything, so idle workspaces cost no memory. */
  private forgetLapsed(): void {
    const now = this.now();
    for (const [id, lease] of this.leases) if (now >= lease.expiresAt && now >= lease.resetAt) this.leases.delete(id);
  }
}

/**
 * Admits the principal's request or refuses it with 429 `concurrency_limit`;
 * the IETF RateLimit headers are named either way (REST sends them, MCP need not).
 */
export async function admitRequest(
  limiter: RateLimiter,
  principal: { workspaceId: string; plan: PlanName },
  setHeader: (name: string, value: string) => void,
): Promise<void> {
  const a = await limiter.admit(principal.workspaceId, PLANS[principal.plan].requestsPerMinute);
  setHeader('RateLimit-Policy', `"workspace";q=${a.limit};w=${WINDOW_MS / 1000}`);
  setHeader('RateLimit', `"workspace";r=${a.remaining};t=${a.resetSeconds}`);
  if (!a.allowed)
    throw new ApiError('concurrency_limit', {
      kind: 'requests_per_minute',
      limit: a.limit,
      active: a.limit,
      retryAfterSeconds: a.resetSeconds,
    });
}
