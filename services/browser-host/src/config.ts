import { duration, port, url } from '@wap/config';
import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';
import { parsePlace } from './domain/exit-place.js';
import { parseExits } from './domain/exits.js';
import { parseUidRange } from './domain/uid-range.js';

/** Every variable the service reads; each .describe() is its meaning in docs/settings.md. */
/** A JSON setting `parse` must take: its error (or "not JSON") is the setting's problem. */
const parsedBy = (parse: (json: string) => unknown) => (json: string, ctx: z.RefinementCtx) => {
  try {
    parse(json);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof SyntaxError ? 'not JSON' : String((err as Error).message) });
  }
};

export const env = baseEnv(50056).extend({
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium').describe("Debian's Chromium; never a downloaded browser."),
  BROWSER_POOL_SIZE: z.coerce.number().int().min(1).max(64).default(2).describe('Chromium processes kept running.'),
  PAGES_PER_BROWSER: z.coerce
    .number()
    .int()
    .min(1)
    .max(32)
    .default(4)
    .describe('Pages rendered at once in one Chromium.'),
  RECYCLE_AFTER_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .default(200)
    .describe('A Chromium is replaced after this many pages, to bound leaks.'),
  EGRESS_ALLOW: sharedEnv.EGRESS_ALLOW,
  BILLING_LEDGER_ADDR: sharedEnv.BILLING_LEDGER_ADDR.optional(),
  CDP_HOST: z
    .string()
    .default('127.0.0.1')
    .describe(
      "Where clients' CDP WebSockets arrive (the tickets the gateway hands out name it): 127.0.0.1 on a laptop, 0.0.0.0 in a cluster.",
    ),
  CDP_PORT: port()
    .prefault('9222')
    .describe('Port of the CDP endpoint GET /connect sends clients to (`make up`: WAP_CDP_PORT).'),
  CDP_PUBLIC_URL: url({ protocols: ['ws:', 'wss:'] })
    .optional()
    .describe('How clients reach the CDP port (ws:// or wss://, behind an ingress); default ws://CDP_HOST:CDP_PORT.'),
  GRPC_PUBLIC_ADDR: z
    .string()
    .optional()
    .describe("How gateways reach this browser host's gRPC (announced with its room); default GRPC_HOST:GRPC_PORT."),
  SESSION_CAPACITY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(8)
    .describe('Live CDP sessions one browser-host takes; past it a connect is 503 no_capacity.'),
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
    }, 'a range "first-last" of uids of 1000 or more, or "off"')
    .describe(
      "The uids session browsers run as, one each, when browser-host runs as root (bare uids, no passwd entry needed), so the kernel keeps each session out of the others' files and the host's; off: all run as the host's user (docs/connect.md, \"Isolation\").",
    ),
  SESSION_NETWORK: z
    .enum(['walled', 'shared'])
    .default('walled')
    .describe(
      'walled: each session browser runs in a network namespace of its own whose one way out is its egress proxy, when browser-host runs as root and unshare, ip and socat are installed (else it says so at start and runs shared); shared: session browsers use the host\'s network, held by their proxy settings and the CDP filter alone (docs/connect.md, "Isolation").',
    ),
  SESSION_WARM: z.coerce
    .number()
    .int()
    .min(0)
    .max(32)
    .default(1)
    .describe('Session browsers kept launched and unused, so a connect does not wait for a launch.'),
  SESSION_DRAIN: duration({ max: '1d' })
    .prefault('0')
    .describe(
      'On SIGTERM, how long live CDP sessions run on (no new ones come) before they end as host_stopped; capped at SHUTDOWN_TIMEOUT less 5 s (to end and bill the rest). 0: at once.',
    ),
  RECORDING_KEY: sharedEnv.RECORDING_KEY,
  SCREENCAST_INTERVAL: duration({ max: '1m' })
    .prefault('1s')
    .describe(
      "A recorded page's screencast (canvas and video in the replay, and the live view) keeps a JPEG frame this often at most, only when the page changed; 0 turns it off.",
    ),
  SCREENCAST: z
    .enum(['needed', 'always'])
    .default('needed')
    .describe(
      'When a recorded page runs its screencast: needed (while it shows a canvas, video or plugin, or someone watches live) or always (every page all the time: frames as evidence of every page, for about 55 ms of browser CPU a page and ten times the stored bytes; docs/sessions.md).',
    ),
  PROFILE_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Secret (32+ characters) profiles' stored browser states are sealed under (AES-256-GCM, a key per profile; docs/profiles.md); unset, profiles are not offered. `make up` derives one per machine.",
    ),
  PROFILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_048_576)
    .max(1_000_000_000)
    .default(104_857_600)
    .describe(
      "The most one profile's state may take stored (compressed, sealed); a bigger one is not saved (the last good stays).",
    ),
  PROFILE_LEASE_TTL: duration({ min: '5s', max: '10m' })
    .prefault('30s')
    .describe(
      "How long a profile stays held after its host's last heartbeat (a killed host's profile frees within it).",
    ),
  CAPTCHA_SOLVER_URL: url({ protocols: ['https:', 'http:'] })
    .optional()
    .describe(
      "The captcha solver provider's task API (createTask/getTaskResult: https://api.2captcha.com, https://api.capsolver.com); unset, token widgets (reCAPTCHA v2, hCaptcha, Turnstile) are found but not solved (docs/connect.md, Captchas).",
    ),
  CAPTCHA_SOLVER_KEY: z
    .string()
    .min(1)
    .optional()
    .describe("Secret: the solver provider's client key; sent to it alone, never logged."),
  CAPTCHA_SOLVER_POLL: duration({ min: '100ms', max: '30s' })
    .prefault('1s')
    .describe("How often a solver task's result is asked for (the providers ask for no more than one a second)."),
  EXITS: z
    .string()
    .default('')
    .superRefine(parsedBy(parseExits))
    .describe(
      'JSON array of exits profiles pin (docs/profiles.md): {id, kind: residential or datacenter, region, url (http:// or socks5:// proxy), and where it comes out when known: country (ISO 3166-1 alpha-2), timezone (IANA), locale (BCP 47)}; a session through it takes that time zone and locale unless it asks for its own. Empty: profiles go direct.',
    ),
  EGRESS_PLACE: z
    .string()
    .default('')
    .superRefine(parsedBy(parsePlace))
    .describe(
      "Where the host's own traffic comes out (the render pool, sessions without an exit), as JSON {country (ISO 3166-1 alpha-2), timezone (IANA), locale (BCP 47)}, each optional: their pages' time zone and locale, unless a session asks for its own (docs/profiles.md, Exits). Empty: UTC and en-US.",
    ),
});

export type BrowserHostConfig = z.infer<typeof env>;
