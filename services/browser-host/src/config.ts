import { port, url } from '@wap/config';
import { baseEnv } from '@wap/service';
import { z } from 'zod';
import { parseExits } from './domain/exits.js';
import { parseUidRange } from './sessions/os-users.js';

export const env = baseEnv(50056).extend({
  /** Debian's Chromium; never a downloaded browser. */
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /** Chromium processes kept running. */
  BROWSER_POOL_SIZE: z.coerce.number().int().min(1).max(64).default(2),
  /** Pages rendered at once in one Chromium. */
  PAGES_PER_BROWSER: z.coerce.number().int().min(1).max(32).default(4),
  /** A Chromium is replaced after this many pages, to bound leaks. */
  RECYCLE_AFTER_PAGES: z.coerce.number().int().min(1).default(200),
  /**
   * CIDR ranges the egress guard lets through, for local test sites only.
   * Empty in production: private, loopback and metadata addresses are refused.
   */
  EGRESS_ALLOW: z.string().default(''),
  /** The ledger that holds the slots and credits of CDP sessions; unset, sessions are not offered. */
  BILLING_LEDGER_ADDR: z.string().optional(),
  /** Where clients' CDP WebSockets arrive (the tickets the gateway hands out name it). */
  CDP_HOST: z.string().default('127.0.0.1'),
  CDP_PORT: port().prefault('9222'),
  /** How clients reach CDP_PORT (ws:// or wss://, behind an ingress); default ws://CDP_HOST:CDP_PORT. */
  CDP_PUBLIC_URL: url({ protocols: ['ws:', 'wss:'] }).optional(),
  /** How gateways reach this host's gRPC (announced with its capacity); default GRPC_HOST:GRPC_PORT. */
  GRPC_PUBLIC_ADDR: z.string().optional(),
  /** Live CDP sessions this host takes; past it a connect answers no_capacity. */
  SESSION_CAPACITY: z.coerce.number().int().min(1).max(256).default(8),
  /**
   * The uids session browsers run as, one each, when the host runs as root
   * ("first-last", bare uids with no passwd entry), so the kernel keeps each
   * session out of the others' files and the host's; "off": all run as the
   * host's own user (docs/connect.md, "Isolation").
   */
  SESSION_UIDS: z
    .string()
    .default('200000-209999')
    .refine((text) => {
      try {
        parseUidRange(text);
        return true;
      } catch {
        return false;
      }
    }, 'a range "first-last" of uids of 1000 or more, or "off"'),
  /** Session browsers kept launched and unused, so a connect does not wait for a launch. */
  SESSION_WARM: z.coerce.number().int().min(0).max(32).default(1),
  /**
   * On SIGTERM, how long live sessions may run on before they are ended
   * (host_stopped); no new session comes meanwhile. Capped at
   * SHUTDOWN_TIMEOUT less 5 s (to end and bill the rest). 0: at once.
   */
  SESSION_DRAIN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(0),
  /**
   * The fleet's shared secret for recording chunks (docs/sessions.md): this host
   * signs them, session-recorder checks them. Unset, sessions are not recorded.
   */
  RECORDING_KEY: z.string().min(32).optional(),
  /**
   * A recorded page's screencast (what rrweb cannot see: canvas, video; and
   * the live view) takes a JPEG frame this often at most, and only when the
   * page changed. 0: no screencast.
   */
  SCREENCAST_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /**
   * When a recorded page runs its screencast: `needed`, while it shows what
   * rrweb cannot replay or someone watches live; `always`, every page all the
   * time (frames as evidence of every page, at about 55 ms of browser CPU a
   * page and ten times the stored bytes; docs/sessions.md).
   */
  SCREENCAST: z.enum(['needed', 'always']).default('needed'),
  /**
   * The fleet's secret profiles' stored states are sealed under
   * (docs/profiles.md); the same on every replica. Unset, profiles are not offered.
   */
  PROFILE_KEY: z.string().min(32).optional(),
  /** The most one profile's state may take stored (compressed, sealed); a bigger one is not saved. */
  PROFILE_MAX_BYTES: z.coerce.number().int().min(1_048_576).max(1_000_000_000).default(104_857_600),
  /** How long a profile's lease outlives its host's last heartbeat (a host killed with -9 lets go within it). */
  PROFILE_LEASE_TTL_SECONDS: z.coerce.number().int().min(5).max(600).default(30),
  /**
   * The exits profiles pin (docs/profiles.md): a JSON array of
   * { id, kind: residential|datacenter, region, url } (url: http:// or
   * socks5:// upstream proxy); the same on every replica. Empty: every profile is direct.
   */
  EXITS: z
    .string()
    .default('')
    .superRefine((json, ctx) => {
      try {
        parseExits(json);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: err instanceof SyntaxError ? 'not JSON' : String((err as Error).message),
        });
      }
    }),
});

export type BrowserHostConfig = z.infer<typeof env>;
