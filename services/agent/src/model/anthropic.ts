// A step from Anthropic's Messages API, natively: the output is constrained
// by one tool whose input schema is the step's, forced with `tool_choice`,
// and read from the `tool_use` block. The system prompt is marked for the
// prompt cache: it is byte-identical across a run's steps, and the cache is
// opt-in on this API (below its minimum length the mark is ignored). The
// official `@anthropic-ai/sdk` speaks the wire; retries, timeouts and errors
// are retry.ts's.
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { extractJsonObject, objectRoot, requireObject, tokenCount } from './json.js';
import { boundedFetch, type RetryOptions, withRetries } from './retry.js';
import type { ModelClient, ModelMessage, StepRequest, StepResult } from './types.js';
import { ModelError, type StepProfile } from './types.js';

export interface AnthropicOptions extends RetryOptions {
  name: string;
  /** The API's origin, without /v1. Default https://api.anthropic.com. */
  baseUrl?: string;
  /** Sent as `x-api-key`; a gateway in front may hold the key itself. */
  apiKey?: string;
  model: string;
  vision?: boolean;
  /** How steps are put to it; `full` unless set. */
  profile?: StepProfile;
  /** `max_tokens` when the step names none; the API requires one. Default 1024. */
  maxTokens?: number;
  fetch?: typeof fetch;
}

interface Block {
  type?: unknown;
  name?: unknown;
  input?: unknown;
  text?: unknown;
}

const API_VERSION = '2023-06-01';

export class AnthropicClient implements ModelClient {
  readonly name: string;
  readonly vision: boolean;
  readonly profile: StepProfile;
  readonly #options: AnthropicOptions;
  readonly #sdk: Anthropic;

  constructor(options: AnthropicOptions) {
    this.name = options.name;
    this.vision = options.vision ?? false;
    this.profile = options.profile ?? 'full';
    this.#options = options;
    this.#sdk = new Anthropic({
      baseURL: (options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, ''),
      // Never a key from the replica's environment (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN): only the endpoint's,
      // as `x-api-key` (the SDK would send it as a bearer token), under the API version the bodies are written for.
      apiKey: null,
      authToken: null,
      defaultHeaders: { 'x-api-key': options.apiKey ?? null, authorization: null, 'anthropic-version': API_VERSION },
      maxRetries: 0,
      timeout: options.timeoutMs ?? 120_000,
      fetch: boundedFetch(options.name, options.fetch),
    });
  }

  async step(request: StepRequest): Promise<StepResult> {
    const started = performance.now();
    const o = this.#options;
    const params: MessageCreateParamsNonStreaming = {
      model: o.model,
      max_tokens: request.maxOutputTokens ?? o.maxTokens ?? 1024,
      system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
      messages: request.messages.map((m) => this.#message(m)),
      tools: [{ name: request.schemaName, input_schema: objectRoot(request.schema).schema as { type: 'object' } }],
      tool_choice: { type: 'tool', name: request.schemaName },
    };
    const body: unknown = await withRetries(
      { ...o, signal: request.signal, secrets: o.apiKey ? [o.apiKey] : [] },
      (signal) => this.#sdk.messages.create(params, { signal }),
    );
    // What a hostile server sent: every field checked before it is read.
    const answer = (typeof body === 'object' && body !== null ? body : {}) as {
      model?: unknown;
      content?: unknown;
      stop_reason?: unknown;
      usage?: Record<string, unknown>;
    };
    const usage = answer.usage ?? {};
    return {
      output: objectRoot(request.schema).unwrap(this.#output(answer.content, answer.stop_reason, request.schemaName)),
      usage: {
        // Tokens read from or written to the cache are counted apart from `input_tokens`: all were input.
        inputTokens:
          tokenCount(usage.input_tokens) +
          tokenCount(usage.cache_creation_input_tokens) +
          tokenCount(usage.cache_read_input_tokens),
        outputTokens: tokenCount(usage.output_tokens),
      },
      model: typeof answer.model === 'string' ? answer.model.slice(0, 200) : o.model,
      ms: Math.round(performance.now() - started),
    };
  }

  #message(m: ModelMessage): MessageParam {
    if (m.role !== 'user' || !this.vision || !m.images?.length) return { role: m.role, content: m.text };
    return {
      role: 'user',
      content: [
        ...m.images.map((png) => ({
          type: 'image' as const,
          source: { type: 'base64' as const, media_type: 'image/png' as const, data: png },
        })),
        // The API refuses an empty text block.
        ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
      ],
    };
  }

  /** The `tool_use` block's input; text that holds the JSON when the model answered in prose instead. */
  #output(content: unknown, stopReason: unknown, schemaName: string): Record<string, unknown> {
    const name = this.name;
    if (stopReason === 'refusal') throw new ModelError(`${name}: the model refused the step`, 'bad_output');
    const blocks: Block[] = Array.isArray(content) ? content.filter((b) => typeof b === 'object' && b !== null) : [];
    const call = blocks.find((b) => b.type === 'tool_use');
    if (call) {
      if (call.name !== schemaName) throw new ModelError(`${name}: the model called another tool`, 'bad_output');
      return requireObject(call.input, `${name}: the tool_use input`);
    }
    const text = blocks.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
    if (!text) throw new ModelError(`${name}: answer has neither a tool_use block nor text`, 'bad_output');
    try {
      return extractJsonObject(text);
    } catch (e) {
      if (stopReason !== 'max_tokens') throw e;
      throw new ModelError(`${name}: answer cut off at max_tokens`, 'bad_output');
    }
  }
}
