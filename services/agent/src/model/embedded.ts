// The embedded model: a small instruct GGUF run on the CPU by node-llama-cpp, so agents run with
// no account anywhere. The weights are fetched by scripts/fetch-model.sh into a cache outside the
// clone (docs/models.md); until they are there a step fails with ModelError 'unavailable' saying so.
//
// One model and one context sequence per process, whatever the number of clients: steps are
// serialised, and each step's prompt is aligned with what the sequence already holds, so only the
// tokens after the longest common prefix are evaluated. The system prompt is kept byte-identical
// across steps by the run loop, so it is evaluated once; a run's earlier messages are reused too
// when the previous step on the replica was the same run's.
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  ChatHistoryItem,
  GbnfJsonSchema,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaContextSequence,
  LlamaJsonSchemaGrammar,
  LlamaModel,
} from 'node-llama-cpp';
import { type ModelClient, ModelError, type StepProfile, type StepRequest, type StepResult } from './types.js';

/** The models scripts/fetch-model.sh fetches, by the name it takes, and their file names in the cache. */
export const EMBEDDED_MODEL_FILES = {
  'qwen2.5-coder-1.5b': 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  'qwen2.5-coder-0.5b': 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
  'smollm2-135m': 'smollm2-135m-instruct-q4_1.gguf',
} as const;
export type EmbeddedModelName = keyof typeof EMBEDDED_MODEL_FILES;

/** Where scripts/fetch-model.sh keeps models: $WAP_MODEL_DIR, else ${XDG_CACHE_HOME:-~/.cache}/wap/models. */
export function embeddedModelDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WAP_MODEL_DIR) return env.WAP_MODEL_DIR;
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'wap', 'models');
}

/** The file a model is fetched to. */
export function embeddedModelPath(name: EmbeddedModelName, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(embeddedModelDir(env), EMBEDDED_MODEL_FILES[name]);
}

export type EmbeddedModelState = 'ready' | 'fetching' | 'missing';

/** A fetch's lock (scripts/fetch-model.mjs) not rewritten for this long is a dead fetch's. */
const STALE_LOCK_MS = 120_000;

interface FetchLock {
  pid: number;
  host: string;
  done?: number;
  total?: number;
}

/** The lock of a fetch under way, if one is (the same test as the script's). */
function liveFetch(modelPath: string): FetchLock | undefined {
  const lockPath = `${modelPath}.lock`;
  let lock: FetchLock;
  try {
    if (Date.now() - statSync(lockPath).mtimeMs > STALE_LOCK_MS) return undefined;
    lock = JSON.parse(readFileSync(lockPath, 'utf8')) as FetchLock;
  } catch {
    return existsSync(lockPath) ? { pid: 0, host: '' } : undefined;
  }
  if (lock.host === os.hostname() && lock.pid > 0) {
    try {
      process.kill(lock.pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
    }
  }
  return lock;
}

/** Whether the model file is there ('ready'), being fetched, or neither. */
export function embeddedModelStatus(modelPath: string): EmbeddedModelState {
  if (existsSync(modelPath)) return 'ready';
  return liveFetch(modelPath) ? 'fetching' : 'missing';
}

/** The ModelError a step fails with while the model file is not there. */
function notThere(modelPath: string): ModelError {
  const fetching = liveFetch(modelPath);
  const file = path.basename(modelPath);
  if (fetching) {
    const progress = fetching.total
      ? ` (${Math.round((fetching.done ?? 0) / 1e6)} of ${Math.round(fetching.total / 1e6)} MB)`
      : '';
    return new ModelError(
      `The embedded model ${file} is still being fetched${progress}; try again shortly.`,
      'unavailable',
    );
  }
  return new ModelError(
    `The embedded model ${file} is not there yet (${modelPath}): it is fetched when the fleet starts, or by scripts/fetch-model.sh.`,
    'unavailable',
  );
}

export interface EmbeddedModelOptions {
  /** The GGUF file (embeddedModelPath(name) for a fetched one). */
  modelPath: string;
  /** Threads that evaluate tokens; default: the machine's cores. */
  threads?: number;
  /** Tokens the context holds, prompt and answer together; default 4096. */
  contextSize?: number;
  /** Generated tokens at most, when a step does not say; default 512. */
  maxOutputTokens?: number;
  /** Sampling temperature; default 0 (greedy: the same page gives the same action). */
  temperature?: number;
  /** How steps are put to it; default `compact` (a small model fails the frontier models' step). */
  profile?: StepProfile;
  /** The longest a step waits for its turn before it fails as `rate_limited` (no capacity); default 2 minutes. */
  maxQueueMs?: number;
}

export interface EmbeddedStepResult extends StepResult {
  /** Prompt tokens actually evaluated: the rest (inputTokens minus these) came from the KV cache. */
  evaluatedInputTokens: number;
  /** Of `ms`, the time waiting for the steps before it on the one sequence. */
  queueMs: number;
}

/** Grammars kept per engine: a compact step's schema changes with the page, so old ones are let go. */
const MAX_GRAMMARS = 64;

type Grammar = LlamaJsonSchemaGrammar<GbnfJsonSchema>;

/** The loaded model: one per (file, context size, threads) in a process, shared by clients. */
interface Engine {
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  chat: LlamaChat;
  llama: Llama;
  name: string;
  grammars: Map<string, { key: string; grammar: Grammar }>;
  /** The tail of the step queue. */
  tail: Promise<void>;
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

let binding: Promise<{ lib: NodeLlamaCpp; llama: Llama }> | undefined;

/** node-llama-cpp and its prebuilt CPU addon, loaded on first use: never downloaded or built here. */
function loadBinding(): Promise<{ lib: NodeLlamaCpp; llama: Llama }> {
  binding ??= (async () => {
    const lib = await import('node-llama-cpp');
    const llama = await lib.getLlama({
      gpu: false,
      build: 'never',
      skipDownload: true,
      usePrebuiltBinaries: true,
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.error,
    });
    return { lib, llama };
  })();
  binding.catch(() => {
    binding = undefined;
  });
  return binding;
}

const engines = new Map<string, { clients: number; engine?: Promise<Engine> }>();

async function openEngine(modelPath: string, contextSize: number, threads: number): Promise<Engine> {
  const { lib, llama } = await loadBinding();
  const model = await llama.loadModel({ modelPath });
  try {
    const context = await model.createContext({ contextSize, threads, sequences: 1 });
    const sequence = context.getSequence();
    const chat = new lib.LlamaChat({ contextSequence: sequence, chatWrapper: lib.resolveChatWrapper(model) });
    return {
      model,
      context,
      sequence,
      chat,
      llama,
      name: path.basename(modelPath).replace(/\.gguf$/i, ''),
      grammars: new Map(),
      tail: Promise.resolve(),
    };
  } catch (err) {
    await model.dispose();
    throw err;
  }
}

/** Rejects with an 'aborted' ModelError when `signal` fires first. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new ModelError('The step was aborted.', 'aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ModelError('The step was aborted.', 'aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * String length bounds the grammar keeps: node-llama-cpp makes a bound a repetition, which llama.cpp
 * refuses from 2,000 on ("exceeds sane defaults"), and a bound that large hardly holds a small
 * model back anyway. Larger ones are left to the caller's validation and to the token limit.
 */
const GRAMMAR_LENGTH_BOUND = 1000;

/**
 * The step's schema in node-llama-cpp's dialect: `anyOf` becomes `oneOf` (a grammar makes no
 * difference between them); string length bounds up to GRAMMAR_LENGTH_BOUND are kept (none when
 * `lengths` is false). Every declared property is generated, in the schema's order, so the answer
 * satisfies the schema whether or not a property is required.
 */
export function toGbnfSchema(schema: unknown, lengths: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toGbnfSchema(s, lengths));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const') out[key] = value;
    // A map of names to schemas: a property may be named `title` or `$schema` like a keyword.
    else if ((key === 'properties' || key === '$defs') && value !== null && typeof value === 'object')
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toGbnfSchema(sub, lengths)]));
    else if (key === 'anyOf') out.oneOf = toGbnfSchema(value, lengths);
    else if (key === 'maxLength' || key === 'minLength') {
      if (lengths && typeof value === 'number' && value <= GRAMMAR_LENGTH_BOUND) out[key] = value;
    } else if (key === '$schema' || key === 'title') continue;
    else out[key] = toGbnfSchema(value, lengths);
  }
  return out;
}

/** The run loop's messages as a chat history: the system prompt first, turns of one role merged. */
function toHistory(system: string, messages: StepRequest['messages']): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [{ type: 'system', text: system }];
  for (const m of messages) {
    const last = history[history.length - 1]!;
    if (m.role === 'user') {
      if (last.type === 'user') last.text += `\n\n${m.text}`;
      else history.push({ type: 'user', text: m.text });
    } else if (last.type === 'model' && typeof last.response[0] === 'string') {
      last.response[0] += `\n\n${m.text}`;
    } else {
      history.push({ type: 'model', response: [m.text] });
    }
  }
  history.push({ type: 'model', response: [] });
  return history;
}

export class EmbeddedModelClient implements ModelClient {
  readonly name = 'embedded';
  readonly vision = false;
  readonly profile: StepProfile;
  readonly modelPath: string;
  private readonly key: string;
  private readonly contextSize: number;
  private readonly threads: number;
  private readonly maxOutputTokens: number;
  private readonly temperature: number;
  private readonly maxQueueMs: number;
  private closed = false;

  constructor(options: EmbeddedModelOptions) {
    this.modelPath = path.resolve(options.modelPath);
    this.contextSize = options.contextSize ?? 4096;
    this.threads = options.threads ?? os.availableParallelism();
    this.maxOutputTokens = options.maxOutputTokens ?? 512;
    this.temperature = options.temperature ?? 0;
    this.profile = options.profile ?? 'compact';
    this.maxQueueMs = options.maxQueueMs ?? 120_000;
    this.key = `${this.modelPath}|${this.contextSize}|${this.threads}`;
    const shared = engines.get(this.key) ?? { clients: 0 };
    shared.clients++;
    engines.set(this.key, shared);
  }

  /** The model file's state, for a run waiting on it. */
  status(): EmbeddedModelState {
    return embeddedModelStatus(this.modelPath);
  }

  /** Loads the model now instead of on the first step. */
  async warm(): Promise<void> {
    await this.engine();
  }

  private engine(): Promise<Engine> {
    if (this.closed) return Promise.reject(new ModelError('The embedded model client is closed.', 'unavailable'));
    const shared = engines.get(this.key)!;
    if (shared.engine) return shared.engine;
    if (!existsSync(this.modelPath)) return Promise.reject(notThere(this.modelPath));
    const opening = openEngine(this.modelPath, this.contextSize, this.threads).catch((err: unknown) => {
      if (shared.engine === opening) shared.engine = undefined;
      throw new ModelError(
        `The embedded model ${this.modelPath} did not load: ${(err as Error).message}`,
        'unavailable',
      );
    });
    shared.engine = opening;
    return opening;
  }

  /** Ready once the model file is there; until then, why not (being fetched, with its progress). */
  ready(): { ready: true } | { ready: false; why: string } {
    if (embeddedModelStatus(this.modelPath) === 'ready') return { ready: true };
    return { ready: false, why: notThere(this.modelPath).message };
  }

  async step(request: StepRequest): Promise<EmbeddedStepResult> {
    const started = performance.now();
    const engine = await unlessAborted(this.engine(), request.signal);
    // Steps take turns on the one sequence; one aborted while waiting leaves the queue at once.
    const previous = engine.tail;
    let release!: () => void;
    engine.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await unlessAborted(this.turn(previous), request.signal);
      const queueMs = Math.round(performance.now() - started);
      return { ...(await this.generate(engine, request, started)), queueMs };
    } finally {
      void previous.then(release);
    }
  }

  /** The step's turn: the steps before it done, or a `rate_limited` ModelError past maxQueueMs. */
  private async turn(previous: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const full = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ModelError(
              `The embedded model is busy with other steps: no turn within ${Math.round(this.maxQueueMs / 1000)} s.`,
              'rate_limited',
              undefined,
              Math.min(this.maxQueueMs, 30_000),
            ),
          ),
        this.maxQueueMs,
      );
    });
    try {
      await Promise.race([previous, full]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async generate(
    engine: Engine,
    request: StepRequest,
    started: number,
  ): Promise<Omit<EmbeddedStepResult, 'queueMs'>> {
    const grammar = await this.grammar(engine, request);
    const before = engine.sequence.tokenMeter.getState();
    let response: Awaited<ReturnType<LlamaChat['generateResponse']>>;
    try {
      response = await engine.chat.generateResponse(toHistory(request.system, request.messages), {
        grammar,
        maxTokens: request.maxOutputTokens ?? this.maxOutputTokens,
        temperature: this.temperature,
        signal: request.signal,
      });
    } catch (err) {
      if (request.signal?.aborted) throw new ModelError('The step was aborted.', 'aborted');
      throw new ModelError(`The embedded model failed: ${(err as Error).message}`, 'unavailable');
    }
    const after = engine.sequence.tokenMeter.getState();
    const outputTokens = after.usedOutputTokens - before.usedOutputTokens;
    const evaluatedInputTokens = after.usedInputTokens - before.usedInputTokens;
    // What the sequence holds now is the whole prompt, then the answer.
    const inputTokens = Math.max(evaluatedInputTokens, engine.sequence.contextTokens.length - outputTokens);
    let output: unknown;
    try {
      output = grammar.parse(response.response);
    } catch (err) {
      const why =
        response.metadata.stopReason === 'maxTokens'
          ? `it stopped at ${outputTokens} tokens, before the JSON was complete`
          : (err as Error).message;
      const text = response.response.length > 160 ? `…${response.response.slice(-160)}` : response.response;
      throw new ModelError(`The embedded model's answer is not usable: ${why}: ${JSON.stringify(text)}`, 'bad_output');
    }
    return {
      output,
      usage: { inputTokens, outputTokens },
      evaluatedInputTokens,
      model: engine.name,
      ms: Math.round(performance.now() - started),
    };
  }

  /** The step's grammar, built once per schema (the most recently used MAX_GRAMMARS are kept). */
  private async grammar(engine: Engine, request: StepRequest): Promise<Grammar> {
    const key = JSON.stringify(request.schema);
    const cached = engine.grammars.get(key);
    if (cached) {
      engine.grammars.delete(key);
      engine.grammars.set(key, cached);
      return cached.grammar;
    }
    // The schema is only known at run time: node-llama-cpp's static typing of it does not apply.
    const build = async (lengths: boolean) =>
      (await engine.llama.createGrammarForJsonSchema(
        toGbnfSchema(request.schema, lengths) as never,
      )) as unknown as Grammar;
    let grammar: Grammar;
    try {
      // Should llama.cpp still refuse the bounded grammar, the same without length bounds.
      grammar = await build(true).catch(() => build(false));
    } catch (err) {
      throw new ModelError(`The schema ${request.schemaName} has no grammar: ${(err as Error).message}`, 'bad_request');
    }
    engine.grammars.set(key, { key, grammar });
    for (const old of engine.grammars.keys()) {
      if (engine.grammars.size <= MAX_GRAMMARS) break;
      engine.grammars.delete(old);
    }
    return grammar;
  }

  /** Frees the model and context when the last client of them closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const shared = engines.get(this.key);
    if (!shared || --shared.clients > 0) return;
    engines.delete(this.key);
    const engine = await shared.engine?.catch(() => undefined);
    if (!engine) return;
    await engine.tail;
    engine.chat.dispose();
    await engine.context.dispose();
    await engine.model.dispose();
  }
}
