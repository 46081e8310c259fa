import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { FLEET_OWNED } from './env-file.js';
import { ROOT } from './fleet.js';
import { packageDir, SERVICE_TABLE, SERVICES, type ServiceName } from './services.js';

/** Every setting with its services, default and meaning: generated, never edited by hand. */
export const SETTINGS_DOC = path.join(ROOT, 'docs', 'settings.md');

/** What each setting means, in a sentence; `default` only where the schema's would mislead (machine-dependent). */
export const MEANINGS: Readonly<Record<string, { meaning: string; default?: string }>> = {
  LOG_LEVEL: { meaning: 'fatal, error, warn, info, debug, trace or silent.' },
  NATS_URL: { meaning: 'NATS JetStream (nats:// or tls://).' },
  NATS_NAMESPACE: { meaning: 'Prefix of every stream and subject, so deployments can share one NATS.' },
  DATABASE_URL: { meaning: "The service's own Postgres database." },
  GRPC_HOST: { meaning: 'Where the gRPC server listens: 127.0.0.1 on a laptop, 0.0.0.0 in a cluster.' },
  GRPC_PORT: { meaning: 'Port of the gRPC server (and its health service).' },
  METRICS_PORT: {
    meaning: 'Port of GET /metrics (Prometheus text format) on GRPC_HOST; unset, metrics are not served.',
  },
  SHUTDOWN_TIMEOUT: { meaning: 'Time to drain in-flight work after SIGTERM (500ms, 30s, 5m).' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { meaning: 'OTLP/HTTP collector for traces; unset, nothing is exported.' },
  OTEL_SERVICE_NAME: { meaning: 'The service name on traces.' },
  HTTP_HOST: { meaning: 'Where the public HTTP API listens.' },
  HTTP_PORT: { meaning: 'Port of the public HTTP API (`make up`: WAP_HTTP_PORT).' },
  BILLING_LEDGER_ADDR: { meaning: 'gRPC target of the ledger; unset on the gateway, its routes are not served.' },
  CRAWL_ADDR: { meaning: 'gRPC target of crawl; unset, scrape, crawl and search are not served.' },
  AGENT_ADDR: { meaning: 'gRPC target of agent; unset, its routes are not served.' },
  MONITOR_ADDR: { meaning: 'gRPC target of monitor; unset, its routes are not served.' },
  SESSION_RECORDER_ADDR: { meaning: 'gRPC target of session-recorder; unset, its routes are not served.' },
  BROWSER_HOST_ADDR: {
    meaning:
      'gRPC target of browser-host, used until hosts announce themselves; unset, crawl fetches without a browser.',
  },
  PUBLIC_URL: {
    meaning:
      "Base URL clients use (behind an ingress): named in the OpenAPI servers, and the base of monitors' snapshot links.",
  },
  MAX_BODY_BYTES: { meaning: 'Largest JSON request body; a larger one is 413 bad_request.' },
  CREDIT_VIEW_TTL_MS: {
    meaning:
      "Longest a workspace's ledger views (its credits, its usage over the default window) are served from the gateway's memory; ledger announcements drop them sooner.",
  },
  STRICT_CONTRACTS: {
    meaning:
      "Tests: an answer that breaks its row's response schema, or an error code the row does not declare, is a 500 (otherwise only logged).",
  },
  HOLD_SWEEP_INTERVAL: { meaning: 'How often expired holds and lapsed slot leases are swept.' },
  EGRESS_ALLOW: {
    meaning:
      'CIDR ranges let through the egress guard, comma-separated (127.0.0.0/8 to scrape a local site). Empty: private, loopback and metadata addresses are refused.',
  },
  EXTRACT_THREADS: {
    meaning: 'Threads that extract pages off the event loop; 0 extracts on it.',
    default: 'cores - 1 (0 on 2 cores or fewer)',
  },
  CRAWL_CONCURRENCY: { meaning: 'Frontier messages one crawl process handles at once.' },
  CRAWL_ACK_WAIT_MS: { meaning: 'A frontier message not acked in this time goes to another worker.' },
  CRAWL_SWEEP_MS: { meaning: 'How often a worker looks for crawls that stopped moving.' },
  CRAWL_IDLE_MS: { meaning: 'A crawl idle this long has its pending URLs queued again.' },
  CRAWL_STALL_MS: {
    meaning: 'A crawl with no page delivered or failed for this long ends as expired, its hold voided.',
  },
  CRAWL_MAX_ATTEMPTS: {
    meaning: "Tries of a URL whose failure is not the page's own before it is recorded failed (dead-lettered).",
  },
  CRAWL_RETENTION_MS: { meaning: 'How long a settled crawl and its pages are kept (then 404).' },
  PAGE_CACHE_SWEEP_MS: { meaning: 'How often cached pages older than a week are deleted.' },
  SEARCH_PROVIDER: { meaning: "builtin (this workspace's pages), searxng or brave." },
  SEARXNG_URL: { meaning: "SearXNG's base URL (its JSON format enabled)." },
  BRAVE_API_KEY: { meaning: 'Brave Search API subscription token.' },
  BRAVE_URL: { meaning: "Brave's endpoint; changed only for a local stand-in." },
  CHROMIUM_PATH: { meaning: "Debian's Chromium; never a downloaded browser." },
  BROWSER_POOL_SIZE: { meaning: 'Chromium processes kept running.' },
  PAGES_PER_BROWSER: { meaning: 'Pages rendered at once in one Chromium.' },
  RECYCLE_AFTER_PAGES: { meaning: 'A Chromium is replaced after this many pages.' },
  CDP_HOST: { meaning: "Where clients' CDP WebSockets arrive: 127.0.0.1 on a laptop, 0.0.0.0 in a cluster." },
  CDP_PORT: { meaning: 'Port of the CDP endpoint GET /connect sends clients to (`make up`: WAP_CDP_PORT).' },
  CDP_PUBLIC_URL: { meaning: 'How clients reach the CDP port (ws:// or wss://, behind an ingress).' },
  GRPC_PUBLIC_ADDR: {
    meaning: "How gateways reach this browser host's gRPC (announced with its room); default GRPC_HOST:GRPC_PORT.",
  },
  SESSION_CAPACITY: { meaning: 'Live CDP sessions one browser-host takes; past it a connect is 503 no_capacity.' },
  SESSION_UIDS: {
    meaning:
      "The uids session browsers run as, one each, when browser-host runs as root (bare uids, no passwd entry needed), so the kernel keeps each session out of the others' files and the host's; off: all run as the host's user.",
  },
  SESSION_WARM: { meaning: 'Session browsers kept launched and unused, so a connect does not wait for a launch.' },
  SESSION_DRAIN_SECONDS: {
    meaning:
      'On SIGTERM, how long live CDP sessions run on (no new ones come) before they end as host_stopped; capped at SHUTDOWN_TIMEOUT less 5 s. 0: at once.',
  },
  RECORDING_KEY: {
    meaning:
      'Shared secret (32+ characters) browser hosts sign recording chunks with and session-recorder checks; unset, sessions are not recorded. `make up` derives one per machine.',
  },
  RECORDING_RETENTION_DAYS: {
    meaning:
      'Days an ended session is kept (row, recording, network log, stream chunks); then it is deleted for good (404).',
  },
  RECORDING_SWEEP_MS: { meaning: 'How often sessions past their retention are looked for and deleted.' },
  SCREENCAST_INTERVAL_MS: {
    meaning:
      "A recorded page's screencast (canvas and video in the replay, and the live view) keeps a JPEG frame this often at most, only when the page changed; 0 turns it off.",
  },
  SCREENCAST: {
    meaning:
      'When a recorded page runs its screencast: needed (while it shows a canvas, video or plugin, or someone watches live) or always (every page, all the time: more evidence, more CPU and bytes).',
  },
  PROFILE_KEY: {
    meaning:
      "Secret (32+ characters) profiles' stored browser states are sealed under (AES-256-GCM, a key per profile); unset, profiles are not offered. `make up` derives one per machine.",
  },
  PROFILE_MAX_BYTES: {
    meaning: "The most one profile's state may take stored; a bigger one is not saved (the last good stays).",
  },
  PROFILE_LEASE_TTL_SECONDS: {
    meaning: "How long a profile stays held after its host's last heartbeat (a killed host's profile frees within it).",
  },
  EXITS: {
    meaning:
      'JSON array of exits profiles pin: {id, kind: residential or datacenter, region, url (http:// or socks5:// proxy)}. Empty: profiles go direct.',
  },
  REPLAY_KEY: {
    meaning:
      'Secret (32+ characters) the gateway signs replay links with; unset, sessions have no replayUrl and no export. `make up` derives one per machine.',
  },
  MONITOR_POLL_MS: { meaning: 'How often a monitor replica looks for due checks.' },
  MONITOR_CHECK_LEASE_MS: {
    meaning: "How long a claimed check stays a replica's unrenewed: a dead replica's checks are taken over within it.",
  },
  DISCORD_API_URL: { meaning: "Another origin for Discord's webhook paths; changed only for a local stand-in." },
  SLACK_HOOKS_URL: { meaning: "Another origin for Slack's incoming-webhook paths; changed only for a local stand-in." },
  MONITOR_CONCURRENCY: { meaning: 'Checks one monitor replica runs at once.' },
  MONITOR_KEY: {
    meaning:
      "Secret (32+ characters) the monitor service seals monitors' target URLs and webhook signing secrets with; unset, monitors cannot be created. `make up` derives one per machine.",
  },
  OAUTH_KEY: {
    meaning:
      "Secret (32+ characters) the gateway signs its OAuth sign-in pages' state with; unset, the gateway is no authorization server (API keys only). `make up` derives one per machine.",
  },
  CONSOLE_DIR: {
    meaning:
      "The web console's build (index.html and assets/), served at /console; without one, /console is 404 (docs/console.md).",
    default: "dist/console beside the gateway's code",
  },
  REPLAY_LINK_TTL_SECONDS: { meaning: 'How long a replay or export link is good for (60 s to 30 days).' },
  AGENT_MODELS: {
    meaning:
      'Model endpoints agent runs may name: a JSON array of { name, kind (openai or anthropic), baseUrl, model, apiKey?, vision?, mode? } (docs/agent.md).',
    default: '`[]` (none)',
  },
  AGENT_DEFAULT_MODEL: { meaning: 'The model of a run that names none: `embedded` or an endpoint of AGENT_MODELS.' },
  EMBEDDED_MODEL_PATH: {
    meaning:
      "The embedded model's GGUF file (scripts/fetch-model.sh); unset, `embedded` is not offered. `make up` sets the cached one.",
  },
  EMBEDDED_MODEL_THREADS: { meaning: 'Threads the embedded model computes on (0: one per core).' },
  AGENT_CONCURRENCY: { meaning: 'Runs one agent replica drives at once, paused ones included.' },
  AGENT_LEASE_MS: {
    meaning: "How often a replica renews its claim on a run; a run's claim not renewed for this long is taken over.",
  },
  AGENT_APPROVAL_TIMEOUT_MS: {
    meaning: "How long a run paused for a purchase's approval waits before it ends with approval_timed_out.",
  },
  AGENT_POLL_MS: { meaning: 'How often an idle agent replica looks for queued runs (a submit also wakes it).' },
  AGENT_DEFAULT_MAX_CREDITS: { meaning: "A run's spend cap when it names none, credits." },
  AGENT_DEFAULT_MAX_STEPS: { meaning: "A run's step cap when it names none." },
  AGENT_FILES_KEY: {
    meaning:
      'Secret (32+ characters) files handed to agent runs are sealed with; unset, runs take no files. `make up` derives one per machine.',
  },
  AGENT_SECRETS_KEY: {
    meaning:
      "Key-encryption key (32+ characters) wrapping each stored secret's own data key (docs/secrets.md); unset, secrets cannot be stored nor integrations connected. `make up` derives one per machine.",
  },
  AGENT_RULES_MODEL: {
    meaning:
      'The model (`embedded` or an AGENT_MODELS name) asked for a gate when no sentence form matches a workspace rule, its answer kept per sentence; unset, the pattern compiler alone decides.',
  },
  AGENT_RUN_SECRETS_LIMIT: { meaning: 'Secret handles one agent run may name (`run_secrets_limit` beyond).' },
  AGENT_INTEGRATIONS_CA_FILE: {
    meaning: "A PEM file of CA certificates integrations' MCP servers are trusted under besides the system's roots.",
  },
};

export interface Setting {
  variable: string;
  services: ServiceName[];
  /** Per service: the default as written, 'required', or undefined when unset means "not configured". */
  defaults: Map<ServiceName, string | undefined>;
}

interface ZodLike {
  shape: Record<string, { _zod: { def: { type: string; defaultValue?: unknown; innerType?: unknown } } }>;
}

/** Each service's environment schema: the `env` its config.ts exports (built, under dist/). */
export function serviceSchemas(): Map<ServiceName, ZodLike> {
  return new Map(
    SERVICE_TABLE.map((s) => [
      s.name,
      require(path.join(ROOT, packageDir(s.name), 'dist', 'config.js')).env as ZodLike,
    ]),
  );
}

function defaultOf(field: ZodLike['shape'][string]): string | undefined {
  const def = field._zod.def;
  if (def.type === 'default' || def.type === 'prefault') return String(def.defaultValue);
  if (def.type === 'optional') return undefined;
  return 'required';
}

/** Every variable some service reads, in the order the services declare them. */
export function settings(schemas = serviceSchemas()): Setting[] {
  const byName = new Map<string, Setting>();
  for (const [service, schema] of schemas) {
    for (const [variable, field] of Object.entries(schema.shape)) {
      const setting: Setting = byName.get(variable) ?? { variable, services: [], defaults: new Map() };
      setting.services.push(service);
      setting.defaults.set(service, defaultOf(field));
      byName.set(variable, setting);
    }
  }
  return [...byName.values()];
}

const code = (text: string) => `\`${text}\``;

function defaultCell(setting: Setting): string {
  const override = MEANINGS[setting.variable]?.default;
  if (override) return override;
  const values = new Set(setting.defaults.values());
  const show = (v: string | undefined) =>
    v === undefined ? 'unset' : v === 'required' ? 'required' : v === '' ? 'empty' : code(v);
  if (values.size === 1) return show([...values][0]);
  return [...setting.defaults].map(([s, v]) => `${s} ${show(v)}`).join(', ');
}

function servicesCell(setting: Setting): string {
  return setting.services.length === SERVICES.length ? 'all' : setting.services.join(', ');
}

/** A markdown table aligned the way biome formats one, so `biome check` leaves it alone. */
export function alignedTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** docs/settings.md: how settings reach the services, then one row per variable. */
export function renderSettingsDoc(list = settings()): string {
  const rows = list.map((s) => {
    const meaning = MEANINGS[s.variable]?.meaning ?? '';
    const owned = FLEET_OWNED.includes(s.variable) ? ' Set by `make up` for each service.' : '';
    return [code(s.variable), servicesCell(s), defaultCell(s), `${meaning}${owned}`];
  });
  return [
    '# Settings',
    '',
    '<!-- Generated from each services/<name>/src/config.ts by `node libs/fleet/dist/settings.js`: edit those, not this. -->',
    '',
    'Every service validates the variables it reads when it starts (its `src/config.ts`, a zod',
    'schema): a bad or missing one is named and the service exits. With `make up`, put them in',
    '`.env` at the repo root (README.md, "Settings"); in a cluster, in the chart\'s values',
    '(charts/web-access/README.md).',
    '',
    ...alignedTable(['variable', 'service(s)', 'default', 'meaning'], rows),
    '',
  ].join('\n');
}

if (require.main === module) {
  writeFileSync(SETTINGS_DOC, renderSettingsDoc());
  console.log(`wrote ${SETTINGS_DOC}`);
}
