// What the run loop asks of a model, whatever serves it: one structured call
// per step. A client turns a StepRequest into its provider's wire format
// (OpenAI-compatible chat completions, Anthropic Messages, or the embedded
// llama.cpp model) and answers the step as parsed JSON, with the tokens it
// cost. Constrained output is the client's job: by JSON Schema where the
// provider supports it, by a forced tool call otherwise, by a grammar for the
// embedded model.

/** A JSON Schema object (draft 2020-12 subset: object, array, string, number, integer, boolean, enum, const, anyOf). */
export type JsonSchema = Record<string, unknown>;

export interface ModelMessage {
  role: 'user' | 'assistant';
  /** Plain text. The page state, the task and answers all arrive as text. */
  text: string;
  /** PNG screenshots, base64 without a data: prefix; sent only to clients with `vision`. */
  images?: string[];
}

export interface StepRequest {
  /** The stable prefix: instructions and the action vocabulary. Kept byte-identical across steps so caches hit. */
  system: string;
  messages: ModelMessage[];
  /** The step's shape; the answer must satisfy it. */
  schema: JsonSchema;
  /** A short identifier for the schema (OpenAI's json_schema.name, the forced tool's name). */
  schemaName: string;
  /** Ends the call (and its retries) early: cancel, a replica stopping. */
  signal?: AbortSignal;
  /** Upper bound on generated tokens. */
  maxOutputTokens?: number;
  /** The schema allows any object (a prompt-only extraction): structured outputs' strict mode is off. */
  loose?: boolean;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * How a step is put to a model (docs/models.md, "Step profiles"): `full` asks a frontier model for an
 * evaluation, a memory, a plan and up to three actions; `compact` asks a small local one for one
 * action over only what the page allows.
 */
export type StepProfile = 'full' | 'compact';
export const STEP_PROFILES = ['full', 'compact'] as const;

/**
 * Step profiles still on trial (docs/agent.md, "Step profiles and lab arms"), each with the profile it
 * varies: a run asks for one by name, and only a workspace enrolled in it (AGENT_LAB_ARMS) may.
 * `compact-plan`: the compact step, with a one-sentence plan the model states once at the start and
 * reads in every step after.
 */
export const LAB_ARMS = { 'compact-plan': 'compact' } as const satisfies Record<string, StepProfile>;
export type LabArm = keyof typeof LAB_ARMS;
/** What a run may ask for: a profile or a lab arm. */
export type RunProfile = StepProfile | LabArm;

export const isLabArm = (name: string): name is LabArm => Object.hasOwn(LAB_ARMS, name);

/** The profile a run's steps take: a lab arm's base, or the profile itself. */
export const baseProfile = (p: RunProfile): StepProfile => (isLabArm(p) ? LAB_ARMS[p] : p);

export interface StepResult {
  /** The parsed JSON the model produced; the caller validates it against the schema again. */
  output: unknown;
  usage: TokenUsage;
  /** The model that answered, as the provider names it. */
  model: string;
  /** Wall time of the call, retries included, milliseconds. */
  ms: number;
  /** Prompt tokens evaluated for this call; the rest of inputTokens came from a cache (when the model says). */
  evaluatedInputTokens?: number;
  /** Of `ms`, the time spent waiting for the model's turn (a shared embedded model), milliseconds. */
  queueMs?: number;
}

export interface ModelClient {
  /** The name runs choose it by (`embedded`, or a configured endpoint's name). */
  readonly name: string;
  /** Whether it takes images: only then does the page state carry a screenshot. */
  readonly vision: boolean;
  /** How its steps are put to it; `full` when unset. */
  readonly profile?: StepProfile;
  step(request: StepRequest): Promise<StepResult>;
  /** Whether it can answer now; while not (a model still being fetched), runs wait, unbilled, saying why. */
  ready?(): { ready: true } | { ready: false; why: string };
  /** Frees what it holds (sockets, the embedded model's memory). */
  close?(): Promise<void>;
}

/**
 * A model call that failed for good. `retryable` says whether a later step
 * may try again (a provider overloaded past its retries) or the run should
 * end (a bad key, a model that does not exist, output that is not JSON).
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly kind: 'auth' | 'rate_limited' | 'unavailable' | 'bad_request' | 'bad_output' | 'aborted',
    readonly status?: number,
    /** How long the model asked to be left alone (a provider's retry-after, the embedded model's queue). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }

  /** No capacity for the call now (a full queue, a provider's 429 or 529): a later call may get it. */
  get noCapacity(): boolean {
    return this.kind === 'rate_limited';
  }

  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'unavailable';
  }
}
