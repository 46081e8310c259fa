import { baseEnv } from '@wap/service';
import { z } from 'zod';

/** One model endpoint a run may name (docs/agent.md, "Models"). */
export const modelEndpoint = z.strictObject({
  /** What a run's `model` names it by. */
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/)
    .refine((n) => n !== 'embedded', 'embedded is the built-in model'),
  /** `openai`: any OpenAI-compatible chat completions API (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM); `anthropic`: the Messages API. */
  kind: z.enum(['openai', 'anthropic']),
  /** The API's base URL: OpenAI-compatible up to `/v1`; Anthropic its origin, without `/v1`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** The provider's model name. */
  model: z.string().min(1),
  apiKey: z.string().optional(),
  /** It takes images: the page state then carries a screenshot. */
  vision: z.boolean().default(false),
  /** OpenAI-compatible only: `json_schema` response format, or a forced tool call for servers without it. */
  mode: z.enum(['json_schema', 'tools']).default('json_schema'),
});

export type ModelEndpoint = z.infer<typeof modelEndpoint>;

const endpoints = z
  .string()
  .default('[]')
  .transform((text, ctx) => {
    try {
      return z.array(modelEndpoint).parse(JSON.parse(text));
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `a JSON array of model endpoints: ${(err as Error).message}` });
      return z.NEVER;
    }
  });

export const env = baseEnv(50053).extend({
  /** The ledger runs are held, settled and given browser slots on. */
  BILLING_LEDGER_ADDR: z.string(),
  /** The browser host runs use before any host has announced itself (one host; the others are found on NATS). */
  BROWSER_HOST_ADDR: z.string().optional(),
  /**
   * The model endpoints runs may choose (a JSON array of { name, kind, baseUrl,
   * model, apiKey?, vision?, mode? }); the keys stay in this setting, never in a
   * run, an event or a log line.
   */
  AGENT_MODELS: endpoints,
  /** The model a run gets when it names none: `embedded` or an endpoint's name. */
  AGENT_DEFAULT_MODEL: z.string().default('embedded'),
  /** The embedded model's GGUF file (scripts/fetch-model.sh puts it there); unset, `embedded` is not offered. */
  EMBEDDED_MODEL_PATH: z.string().optional(),
  /** Threads the embedded model computes on (0: one per core). */
  EMBEDDED_MODEL_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  /** Runs this replica drives at once (paused runs included). */
  AGENT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** A claim on a run lasts this long from its last renewal (renewed every third of it); a dead replica's runs are taken over after it. */
  AGENT_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
  /** How long a run paused for a purchase's approval waits for it before it ends (approval_timed_out). */
  AGENT_APPROVAL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(7 * 24 * 3_600_000)
    .default(15 * 60_000),
  /** How often an idle replica looks for queued runs (a submit also wakes it over NATS). */
  AGENT_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /** A run's spend cap when it names none, credits. */
  AGENT_DEFAULT_MAX_CREDITS: z.coerce.number().int().min(1).default(100),
  /** A run's step cap when it names none. */
  AGENT_DEFAULT_MAX_STEPS: z.coerce.number().int().min(1).max(1_000).default(50),
  /** The fleet's secret run files are sealed under; the same on every replica. Unset, files are refused. */
  AGENT_FILES_KEY: z.string().min(32).optional(),
  /**
   * The key-encryption key of stored secrets (docs/secrets.md): it wraps each
   * secret's own data key. The same on every replica; unset, secrets cannot be
   * stored and integrations cannot be connected.
   */
  AGENT_SECRETS_KEY: z.string().min(32).optional(),
  /**
   * The model (`embedded` or an endpoint's name) asked for a gate when no
   * sentence form matches a workspace rule; unset, the pattern compiler alone
   * decides. Its answers are kept per sentence, so a sentence always classifies the same way.
   */
  AGENT_RULES_MODEL: z.string().optional(),
  /** Secret handles one run may name (run_secrets_limit beyond). */
  AGENT_RUN_SECRETS_LIMIT: z.coerce.number().int().min(1).max(100).default(10),
  /** A PEM file of CA certificates integrations' HTTPS servers are also trusted under (a private CA, a test's). */
  AGENT_INTEGRATIONS_CA_FILE: z.string().optional(),
  /**
   * CIDR ranges a run's start URL and an integration's server may point into, for local test sites only.
   * Empty in production: private, loopback and metadata addresses are refused
   * (the browser host's egress guard refuses them again).
   */
  EGRESS_ALLOW: z.string().default(''),
});

export type AgentConfig = z.infer<typeof env>;
