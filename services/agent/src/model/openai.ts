// A step from any OpenAI-compatible chat completions endpoint: OpenAI,
// vLLM, Ollama, llama.cpp's server, LiteLLM. The output is constrained by
// `response_format: json_schema` where the server supports it, or by one
// forced function tool where it does not; either way the answer is read as
// hostile text (json.ts). Streaming (SSE) is optional: some gateways cut a
// request that stays silent while a slow model thinks.
import { extractJsonObject, MAX_OUTPUT_CHARS, objectRoot, tokenCount } from './json.js';
import { MAX_BODY_BYTES, postWithRetries, type RetryOptions, readJson } from './retry.js';
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

  constructor(options: OpenAiCompatibleOptions) {
    this.name = options.name;
    this.vision = options.vision ?? false;
    this.profile = options.profile ?? 'full';
    this.#options = options;
  }

  async step(request: StepRequest): Promise<StepResult> {
    const started = performance.now();
    const o = this.#options;
    const answer = await postWithRetries(
      {
        ...o,
        url: `${o.baseUrl.replace(/\/+$/, '')}/chat/completions`,
        headers: {
          'content-type': 'application/json',
          accept: o.stream ? 'text/event-stream' : 'application/json',
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify(this.#body(request)),
        signal: request.signal,
        secrets: o.apiKey ? [o.apiKey] : [],
      },
      (res) => (o.stream ? readStream(res, o.name) : readCompletion(res, o.name)),
    );
    return {
      output: objectRoot(request.schema).unwrap(this.#output(answer, request.schemaName)),
      usage: answer.usage,
      model: answer.model ?? o.model,
      ms: Math.round(performance.now() - started),
    };
  }

  #body(request: StepRequest): Record<string, unknown> {
    const o = this.#options;
    const body: Record<string, unknown> = {
      model: o.model,
      messages: [
        { role: 'system', content: request.system },
        ...request.messages.map((m) =>
          m.role === 'user' && this.vision && m.images?.length
            ? {
                role: 'user',
                content: [
                  { type: 'text', text: m.text },
                  ...m.images.map((png) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } })),
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
    if (o.stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
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

interface Message {
  content?: unknown;
  refusal?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[];
}

async function readCompletion(res: Response, name: string): Promise<Answer> {
  const body = (await readJson(res, name)) as {
    model?: unknown;
    choices?: { message?: Message; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
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
  error?: { message?: unknown; code?: unknown };
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

/** Assembles `data:` chunks until `data: [DONE]`; the content and each tool call's arguments stay under the output bound. */
async function readStream(res: Response, name: string): Promise<Answer> {
  if (!res.body) throw new ModelError(`${name}: stream has no body`, 'unavailable');
  const answer: Answer = { content: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
  const grow = (text: string, more: unknown) => {
    if (typeof more !== 'string') return text;
    if (text.length + more.length > MAX_OUTPUT_CHARS) {
      throw new ModelError(`${name}: streamed output over ${MAX_OUTPUT_CHARS} characters`, 'bad_output');
    }
    return text + more;
  };
  const take = (chunk: Chunk) => {
    if (chunk.error) throw streamError(chunk.error, name);
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
  const reader = res.body.getReader();
  try {
    await eachData(reader, name, (data) => take(parseChunk(data, name)));
  } finally {
    // Frees the connection when the answer is refused halfway.
    await reader.cancel().catch(() => {});
  }
  return { ...answer, toolCalls: answer.toolCalls.filter(Boolean) };
}

/** Hands each server-sent event's `data:` to `each` until `data: [DONE]`; a stream that ends before it was cut. */
async function eachData(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  name: string,
  each: (data: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    pending += decoder.decode(read.value, { stream: true });
    if (pending.length > MAX_BODY_BYTES) {
      throw new ModelError(`${name}: stream line over ${MAX_BODY_BYTES} bytes`, 'bad_output');
    }
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl).replace(/\r$/, '');
      pending = pending.slice(nl + 1);
      // Blank lines end events; `:` comments keep the connection alive; event:, id:, retry: say nothing here.
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      each(data);
    }
  }
  throw new ModelError(`${name}: stream ended before [DONE]`, 'unavailable');
}

function parseChunk(data: string, name: string): Chunk {
  try {
    const chunk: unknown = JSON.parse(data);
    if (typeof chunk === 'object' && chunk !== null) return chunk as Chunk;
  } catch {
    // Falls through to the error below.
  }
  throw new ModelError(`${name}: a stream chunk is not a JSON object`, 'bad_output');
}

/** An error sent inside the stream (vLLM's, OpenAI's): a 4xx code is the request's fault, anything else the server's. */
function streamError(error: NonNullable<Chunk['error']>, name: string): ModelError {
  const message = typeof error.message === 'string' ? error.message.slice(0, 300) : 'error';
  const code = Number(error.code);
  const kind = code >= 400 && code < 500 ? 'bad_request' : 'unavailable';
  return new ModelError(`${name}: error in stream: ${message}`, kind);
}
