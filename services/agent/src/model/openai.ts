// A step from any OpenAI-compatible chat completions endpoint: OpenAI,
// vLLM, Ollama, llama.cpp's server, LiteLLM. The output is constrained by
// `response_format: json_schema` where the server supports it, or by one
// forced function tool where it does not; either way the answer is read as
// hostile text (json.ts). Streaming (SSE) is optional: some gateways cut a
// request that stays silent while a slow model thinks. The official `openai`
// SDK speaks the wire (its baseURL reaches every compatible server); retries,
// timeouts and errors are retry.ts's.
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { extractJsonObject, MAX_OUTPUT_CHARS, objectRoot, tokenCount } from './json.js';
import { boundedFetch, type RetryOptions, withRetries } from './retry.js';
import {
  type ModelClient,
  ModelError,
  type StepProfile,
  type StepRequest,
  type StepResult,
  type TokenUsage,
} from './types.js';

export interface OpenAiCompatibleOptions extends RetryOptions {
  name: string;
  /** The API's root, ending in /v1: https://api.openai.com/v1, http://vllm:8000/v1, http://ollama:11434/v1. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; local servers often need none. */
  apiKey?: string;
  model: string;
  /** Whether the model takes images: only then are screenshots sent. */
  vision?: boolean;
  /** How steps are put to it; `full` unless set. */
  profile?: StepProfile;
  /** `json_schema` where the server supports structured outputs, else `tools` (one forced function call). */
  mode: 'json_schema' | 'tools';
  /** Ask for server-sent events and assemble them. */
  stream?: boolean;
  /** OpenAI's reasoning models refuse `max_tokens` and take `max_completion_tokens`; most servers take `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  fetch?: typeof fetch;
}

/** What one completion said, streamed or not. */
interface Answer {
  model?: string;
  content: string;
  refusal?: string;
  toolCalls: { name: string; arguments: string }[];
  finishReason?: string;
  usage: TokenUsage;
}

export class OpenAiCompatibleClient implements ModelClient {
  readonly name: string;
  readonly vision: boolean;
  readonly profile: StepProfile;
  readonly #options: OpenAiCompatibleOptions;
  readonly #sdk: OpenAI;

  constructor(options: OpenAiCompatibleOptions) {
    this.name = options.name;
    this.vision = options.vision ?? false;
    this.profile = options.profile ?? 'full';
    this.#options = options;
    this.#sdk = new OpenAI({
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      // A local server needs no key: the SDK wants one, and the header it would carry is left out.
      apiKey: options.apiKey ?? 'none',
      ...(!options.apiKey && { defaultHeaders: { authorization: null } }),
      // Nothing from the replica's environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID) reaches the endpoint.
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: options.timeoutMs ?? 120_000,
      fetch: boundedFetch(options.name, options.fetch),
    });
  }

  async step(request: StepRequest): Promise<StepResult> {
    const started = performance.now();
    const o = this.#options;
    const body = this.#body(request);
    const answer = await withRetries(
      { ...o, signal: request.signal, secrets: o.apiKey ? [o.apiKey] : [] },
      async (signal) => {
        const headers = body.stream ? { accept: 'text/event-stream' } : {};
        const answered = await this.#sdk.chat.completions.create(body, { signal, headers });
        // A stream when asked for one; anything else is read as a completion (the SDK hands a body that is not JSON on as text).
        const stream = typeof answered === 'object' && answered !== null && Symbol.asyncIterator in answered;
        return stream ? readStream(answered, o.name) : readCompletion(answered, o.name);
      },
    );
    return {
      output: objectRoot(request.schema).unwrap(this.#output(answer, request.schemaName)),
      usage: answer.usage,
      model: answer.model ?? o.model,
      ms: Math.round(performance.now() - started),
    };
  }

  #body(request: StepRequest): ChatCompletionCreateParams {
    const o = this.#options;
    const body: ChatCompletionCreateParams & Record<string, unknown> = {
      model: o.model,
      messages: [
        { role: 'system', content: request.system },
        ...request.messages.map(
          (m): ChatCompletionMessageParam =>
            m.role === 'user' && this.vision && m.images?.length
              ? {
                  role: 'user',
                  content: [
                    { type: 'text', text: m.text },
                    ...m.images.map((png) => ({
                      type: 'image_url' as const,
                      image_url: { url: `data:image/png;base64,${png}` },
                    })),
                  ],
                }
              : { role: m.role, content: m.text },
        ),
      ],
    };
    if (request.maxOutputTokens) body[o.maxTokensField ?? 'max_tokens'] = request.maxOutputTokens;
    const { schema } = objectRoot(request.schema);
    if (o.mode === 'json_schema') {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: request.schemaName, strict: !request.loose, schema },
      };
    } else {
      body.tools = [{ type: 'function', function: { name: request.schemaName, parameters: schema } }];
      body.tool_choice = { type: 'function', function: { name: request.schemaName } };
    }
    return o.stream ? { ...body, stream: true, stream_options: { include_usage: true } } : body;
  }

  /** The step: the forced tool call's arguments, or the content (a server that ignored the tool answers there). */
  #output(answer: Answer, schemaName: string): Record<string, unknown> {
    const name = this.name;
    if (answer.refusal) throw new ModelError(`${name}: the model refused the step`, 'bad_output');
    const call = answer.toolCalls[0];
    if (call && call.name !== schemaName) throw new ModelError(`${name}: the model called another tool`, 'bad_output');
    const text = call ? call.arguments : answer.content;
    if (!text) throw new ModelError(`${name}: answer has neither content nor a tool call`, 'bad_output');
    try {
      return extractJsonObject(text);
    } catch (e) {
      if (answer.finishReason !== 'length') throw e;
      throw new ModelError(`${name}: answer cut off at the token limit`, 'bad_output');
    }
  }
}

/** A completion as a hostile server may send it: every field checked before it is read. */
interface Completion {
  model?: unknown;
  choices?: { message?: Message; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
}

interface Message {
  content?: unknown;
  refusal?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[];
}

function readCompletion(completion: unknown, name: string): Answer {
  const body = (typeof completion === 'object' && completion !== null ? completion : {}) as Completion;
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = choice?.message;
  if (!message || typeof message !== 'object') throw new ModelError(`${name}: answer has no message`, 'bad_output');
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    ...(typeof body.model === 'string' ? { model: body.model.slice(0, 200) } : {}),
    content: typeof message.content === 'string' ? message.content : '',
    ...(typeof message.refusal === 'string' && message.refusal ? { refusal: message.refusal } : {}),
    toolCalls: calls.map((c) => ({
      name: typeof c?.function?.name === 'string' ? c.function.name : '',
      arguments: typeof c?.function?.arguments === 'string' ? c.function.arguments : '',
    })),
    ...(typeof choice?.finish_reason === 'string' ? { finishReason: choice.finish_reason } : {}),
    usage: {
      inputTokens: tokenCount(body.usage?.prompt_tokens),
      outputTokens: tokenCount(body.usage?.completion_tokens),
    },
  };
}

interface Chunk {
  model?: unknown;
  choices?: {
    delta?: {
      content?: unknown;
      refusal?: unknown;
      tool_calls?: { index?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
    };
    finish_reason?: unknown;
  }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
}

/** Assembles the SDK's chunks; the content and each tool call's arguments stay under the output bound. */
async function readStream(chunks: AsyncIterable<ChatCompletionChunk>, name: string): Promise<Answer> {
  const answer: Answer = { content: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
  const grow = (text: string, more: unknown) => {
    if (typeof more !== 'string') return text;
    if (text.length + more.length > MAX_OUTPUT_CHARS) {
      throw new ModelError(`${name}: streamed output over ${MAX_OUTPUT_CHARS} characters`, 'bad_output');
    }
    return text + more;
  };
  const take = (chunk: Chunk) => {
    if (typeof chunk.model === 'string') answer.model = chunk.model.slice(0, 200);
    if (chunk.usage) {
      answer.usage = {
        inputTokens: tokenCount(chunk.usage.prompt_tokens),
        outputTokens: tokenCount(chunk.usage.completion_tokens),
      };
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!choice) return;
    if (typeof choice.finish_reason === 'string') answer.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    answer.content = grow(answer.content, delta.content);
    if (typeof delta.refusal === 'string') answer.refusal = (answer.refusal ?? '') + delta.refusal;
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const index = typeof part.index === 'number' ? part.index : 0;
      if (!Number.isInteger(index) || index < 0 || index > 7)
        throw new ModelError(`${name}: bad tool call index`, 'bad_output');
      const call = answer.toolCalls[index] ?? { name: '', arguments: '' };
      answer.toolCalls[index] = call;
      if (typeof part.function?.name === 'string') call.name = part.function.name.slice(0, 200);
      call.arguments = grow(call.arguments, part.function?.arguments);
    }
  };
  // Leaving the loop early (a refusal halfway) makes the SDK abort the request and free the connection.
  for await (const chunk of chunks) take(typeof chunk === 'object' && chunk !== null ? (chunk as Chunk) : {});
  // The SDK ends quietly when the server closes before `[DONE]`; a choice that never finished was cut.
  if (answer.finishReason === undefined)
    throw new ModelError(`${name}: stream ended before the answer finished`, 'unavailable');
  return { ...answer, toolCalls: answer.toolCalls.filter(Boolean) };
}
