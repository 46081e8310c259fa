import { duration } from '@wap/config';
import { baseEnv, sharedEnv } from '@wap/service';
import { z } from 'zod';
import { LAB_ARMS, STEP_PROFILES } from './model/types.js';

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
  /** How a step is put to it (docs/models.md, "Step profiles"): `compact` for a small local model. */
  profile: z.enum(STEP_PROFILES).default('full'),
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

/** Who may ask for each lab arm: workspace ids, or `*` for every workspace. */
const labArms = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    const arm = z.enum(Object.keys(LAB_ARMS) as [keyof typeof LAB_ARMS]);
    const enrolled = z.array(z.union([z.literal('*'), z.uuid()]));
    try {
      return z.partialRecord(arm, enrolled).parse(JSON.parse(text));
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `a JSON object of lab arms' enrolled workspaces: ${(err as Error).message}`,
      });
      return z.NEVER;
    }
  });

/** Every variable the service reads; each .describe() is its meaning in docs/settings.md. */
export const env = baseEnv(50053).extend({
  BILLING_LEDGER_ADDR: sharedEnv.BILLING_LEDGER_ADDR,
  BROWSER_HOST_ADDR: sharedEnv.BROWSER_HOST_ADDR.optional(),
  AGENT_MODELS: endpoints.meta({
    description:
      'Model endpoints agent runs may name: a JSON array of { name, kind (openai or anthropic), baseUrl, model, apiKey?, vision?, mode?, profile? (full or compact) } (docs/agent.md); the keys stay in this setting, never in a run, an event or a log line.',
    shownDefault: '`[]` (none)',
  }),
  AGENT_LAB_ARMS: labArms.meta({
    description: `Lab arms (experimental step profiles: ${Object.keys(LAB_ARMS).join(', ')}) and the workspaces enrolled in each, as a JSON object such as {"compact-plan": ["<workspace id>"]} (\`["*"]\`: every workspace); a run of another workspace that asks for an arm is refused with lab_arm_forbidden (docs/agent.md, "Step profiles and lab arms").`,
    shownDefault: '`{}` (none)',
  }),
  AGENT_DEFAULT_MODEL: z
    .string()
    .default('embedded')
    .describe('The model of a run that names none: `embedded` or an endpoint of AGENT_MODELS.'),
  EMBEDDED_MODEL_PATH: z
    .string()
    .optional()
    .describe(
      "The embedded model's GGUF file (scripts/fetch-model.sh); unset, `embedded` is not offered. `make up` sets the cached one.",
    ),
  EMBEDDED_MODEL_THREADS: z.coerce
    .number()
    .int()
    .min(0)
    .max(256)
    .default(1)
    .describe(
      'Threads the embedded model computes on (0: one per core). One by default: on a busy two-core machine a compact step took 5.1 s on one thread and 11.7 s on two (docs/models.md, "Speed on this machine").',
    ),
  EMBEDDED_MODEL_PROFILE: z
    .enum(STEP_PROFILES)
    .default('compact')
    .describe(
      'How the embedded model\'s steps are put to it (docs/models.md, "Step profiles"): `compact`, one action over what the page allows, or `full`, the frontier models\' step.',
    ),
  AGENT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(4)
    .describe('Runs one agent replica drives at once, paused ones included.'),
  AGENT_LEASE: duration({ min: '500ms', max: '10m' })
    .prefault('15s')
    .describe(
      "How long a replica's claim on a run lasts from its last renewal (renewed every third of it); a run's claim not renewed for this long is taken over.",
    ),
  AGENT_APPROVAL_TIMEOUT: duration({ min: '1s', max: '7d' })
    .prefault('15m')
    .describe("How long a run paused for a purchase's approval waits before it ends with approval_timed_out."),
  AGENT_POLL: duration({ min: '50ms', max: '1m' })
    .prefault('1s')
    .describe('How often an idle agent replica looks for queued runs (a submit also wakes it).'),
  AGENT_DEFAULT_MAX_CREDITS: z.coerce
    .number()
    .int()
    .min(1)
    .default(100)
    .describe("A run's spend cap when it names none, credits."),
  AGENT_DEFAULT_MAX_STEPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(50)
    .describe("A run's step cap when it names none."),
  AGENT_FILES_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      'Secret (32+ characters) files handed to agent runs are sealed with, the same on every replica; unset, runs take no files. `make up` derives one per machine.',
    ),
  AGENT_SECRETS_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Key-encryption key (32+ characters) wrapping each stored secret's own data key (docs/secrets.md), the same on every replica; unset, secrets cannot be stored nor integrations connected. `make up` derives one per machine.",
    ),
  EXTRACT_TIMEOUT: duration({ min: '1s', max: '10m' })
    .prefault('2m')
    .describe(
      "The longest a scraped page's model formats (`json`, `summary`) may take, waiting for the model included; past it the format is extraction_failed, reason timeout.",
    ),
  EXTRACT_PAGE_TOKENS: z.coerce
    .number()
    .int()
    .min(256)
    .max(1_000_000)
    .default(8_000)
    .describe(
      'The most of a page (tokens, about four characters each) a model format puts to a model endpoint: a longer page goes as its parts most relevant to the schema and prompt.',
    ),
  EXTRACT_COMPACT_PAGE_TOKENS: z.coerce
    .number()
    .int()
    .min(256)
    .max(1_000_000)
    .default(1_500)
    .describe(
      'The same for a model of the `compact` step profile (the embedded model): what a small context holds and a CPU reads in seconds.',
    ),
  AGENT_RULES_MODEL: z
    .string()
    .optional()
    .describe(
      'The model (`embedded` or an AGENT_MODELS name) asked for a gate when no sentence form matches a workspace rule, its answer kept per sentence (so a sentence always classifies the same way); unset, the pattern compiler alone decides.',
    ),
  AGENT_MAX_QUEUED_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(500)
    .describe(
      "Runs one workspace may have waiting to start, for a replica or for one of its plan's browsers; a submit beyond them is 429 `concurrency_limit` (kind `queued_runs`).",
    ),
  AGENT_RUN_SECRETS_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe('Secret handles one agent run may name (`run_secrets_limit` beyond).'),
  AGENT_INTEGRATIONS_CA_FILE: z
    .string()
    .optional()
    .describe(
      "A PEM file of CA certificates integrations' MCP servers are trusted under besides the system's roots (a private CA, a test's).",
    ),
  EGRESS_ALLOW: sharedEnv.EGRESS_ALLOW,
});

export type AgentConfig = z.infer<typeof env>;
