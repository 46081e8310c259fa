// Anthropic's `POST /v1/messages`: a message object with a `tool_use` block
// when the request forces a tool, text otherwise; its `{type:'error'}` bodies
// for what the real API refuses.
import type { ServerResponse } from 'node:http';
import {
  type Answer,
  type FakeModel,
  type FakeModelOptions,
  id,
  isObject,
  type ModelRequest,
  type Provider,
  type Refusal,
  serve,
  stepText,
  type Usage,
} from './scripted.js';

const ANTHROPIC_ERRORS: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'Bad request'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not Found'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  500: ['api_error', 'Internal server error'],
  529: ['overloaded_error', 'Overloaded'],
};

const anthropicError = (type: string, message: string) => ({
  type: 'error',
  error: { type, message },
  request_id: id('req_'),
});

function anthropicErrorBody(status: number): unknown {
  const [type, message] = ANTHROPIC_ERRORS[status] ?? (status >= 500 ? ANTHROPIC_ERRORS[500]! : ANTHROPIC_ERRORS[400]!);
  return anthropicError(type, message);
}

const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function anthropicContentProblem(content: unknown, where: string): string | null {
  if (typeof content === 'string') return content.trim() ? null : 'messages: text content blocks must be non-empty';
  if (!Array.isArray(content)) return `${where}.content: Input should be a valid list`;
  for (const [j, block] of content.entries()) {
    const at = `${where}.content.${j}`;
    if (!isObject(block)) return `${at}: Input should be a valid dictionary or object to extract fields from`;
    if (block.type === 'text') {
      if (typeof block.text !== 'string') return `${at}.text.text: Field required`;
      if (!block.text.trim()) return 'messages: text content blocks must contain non-whitespace text';
    } else if (block.type === 'image') {
      const source = isObject(block.source) ? block.source : {};
      if (source.type !== 'base64')
        return `${at}.image.source: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
      if (!MEDIA_TYPES.includes(String(source.media_type))) {
        return `${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
      }
      if (typeof source.data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data))
        return `${at}.image.source.base64.data: invalid base64 data`;
    } else if (block.type !== 'tool_use' && block.type !== 'tool_result') {
      return `${at}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'tool_use', 'tool_result'`;
    }
  }
  return null;
}

function refuseAnthropic(req: ModelRequest, apiKey: string | undefined): Refusal {
  const bad = (message: string): Refusal => ({ status: 400, body: anthropicError('invalid_request_error', message) });
  if (req.method !== 'POST' || req.path !== '/v1/messages')
    return { status: 404, body: anthropicError('not_found_error', 'Not Found') };
  if (apiKey) {
    const key = req.headers['x-api-key'];
    if (!key) return { status: 401, body: anthropicError('authentication_error', 'x-api-key header is required') };
    if (key !== apiKey) return { status: 401, body: anthropicError('authentication_error', 'invalid x-api-key') };
  }
  if (!req.headers['anthropic-version']) return bad('anthropic-version: header is required');
  const body = req.body;
  if (!isObject(body)) return bad('There was an issue with the request body: it is not valid JSON');
  for (const field of ['model', 'max_tokens', 'messages'])
    if (body[field] === undefined) return bad(`${field}: Field required`);
  if (typeof body.model !== 'string') return bad('model: Input should be a valid string');
  if (!Number.isInteger(body.max_tokens)) return bad('max_tokens: Input should be a valid integer');
  if ((body.max_tokens as number) < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if (body.stream === true) return bad('stream: this fake answers whole messages only');
  if (!Array.isArray(body.messages)) return bad('messages: Input should be a valid list');
  if (body.messages.length === 0) return bad('messages: at least one message is required');
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const problem = anthropicContentProblem(m.content, `messages.${i}`);
    if (problem) return bad(problem);
  }
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system)) return bad('system: Input should be a valid string');
    for (const [i, block] of body.system.entries()) {
      if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string')
        return bad(`system.${i}: Input should be a text block`);
      if (
        block.cache_control !== undefined &&
        !(isObject(block.cache_control) && block.cache_control.type === 'ephemeral')
      ) {
        return bad(`system.${i}.cache_control.ephemeral.type: Input should be 'ephemeral'`);
      }
    }
  }
  const names: string[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad('tools: Input should be a valid list');
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
        return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      }
      if (!isObject(tool.input_schema)) return bad(`tools.${i}.custom.input_schema: Field required`);
      if (tool.input_schema.type !== 'object')
        return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
      names.push(tool.name);
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (!isObject(choice) || !['auto', 'any', 'tool', 'none'].includes(String(choice.type))) {
      return bad(
        "tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
      );
    }
    if (names.length === 0) return bad('tool_choice may only be specified while providing tools.');
    if (choice.type === 'tool' && !names.includes(String(choice.name)))
      return bad(`tool_choice: tool '${String(choice.name)}' not found in tools`);
  }
  return null;
}

function answerAnthropic(req: ModelRequest, answer: Answer, usage: Usage, res: ServerResponse): void {
  const body = req.body;
  const toolName: string | undefined =
    body.tool_choice?.type === 'tool' ? body.tool_choice.name : body.tools?.[0]?.name;
  const content =
    toolName !== undefined && 'step' in answer
      ? [{ type: 'tool_use', id: id('toolu_'), name: toolName, input: answer.step }]
      : [{ type: 'text', text: stepText(answer) }];
  const message = {
    id: id('msg_'),
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: content[0]?.type === 'tool_use' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: usage.outputTokens,
      service_tier: 'standard',
    },
  };
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req_') }).end(JSON.stringify(message));
}

/** Anthropic's Messages API; `url` is the origin (the client adds `/v1/messages`). */
export function startFakeAnthropic(options: FakeModelOptions): Promise<FakeModel> {
  const provider: Provider = {
    refuse: refuseAnthropic,
    errorBody: anthropicErrorBody,
    answer: answerAnthropic,
  };
  return serve(provider, options, (origin) => origin);
}
