// What OpenAI's chat completions refuse, with its status and error body:
// the key, the model, the messages and their image parts, the limits, a
// strict schema that is not strict, tools and tool_choice that disagree.
import { isObject, type ModelRequest, NAME, type Refusal } from './scripted.js';

const openAiError = (
  message: string,
  type = 'invalid_request_error',
  param: string | null = null,
  code: string | null = null,
) => ({
  error: { message, type, param, code },
});

export function openAiErrorBody(status: number): unknown {
  switch (status) {
    case 401:
      return openAiError('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key');
    case 404:
      return openAiError(
        'The model does not exist or you do not have access to it.',
        'invalid_request_error',
        null,
        'model_not_found',
      );
    case 413:
      return openAiError('Request too large.');
    case 429:
      return openAiError(
        'Rate limit reached for requests. Please try again in 1s.',
        'requests',
        null,
        'rate_limit_exceeded',
      );
    case 503:
      return openAiError('The engine is currently overloaded, please try again later', 'server_error');
    default:
      return status >= 500
        ? openAiError('The server had an error while processing your request. Sorry about that!', 'server_error')
        : openAiError('Bad request.');
  }
}

/** OpenAI's rules for a strict schema: an object root, every object closed, every property required. */
function strictSchemaProblem(schema: unknown, context: string[] = []): string | null {
  if (!isObject(schema)) return null;
  const properties = isObject(schema.properties) ? schema.properties : {};
  if (schema.type === 'object' || isObject(schema.properties)) {
    const where = `In context=(${context.map((c) => `'${c}'`).join(', ')})`;
    if (schema.additionalProperties !== false) {
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = Object.keys(properties).find((k) => !required.includes(k));
    if (missing) {
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
  }
  const children: [string[], unknown][] = [
    ...Object.entries(properties).map(([k, v]): [string[], unknown] => [['properties', k], v]),
    [['items'], schema.items],
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []).map((v, i): [string[], unknown] => [['anyOf', String(i)], v]),
    ...Object.entries(isObject(schema.$defs) ? schema.$defs : {}).map(([k, v]): [string[], unknown] => [
      ['$defs', k],
      v,
    ]),
  ];
  for (const [path, child] of children) {
    const problem = strictSchemaProblem(child, [...context, ...path]);
    if (problem) return problem;
  }
  return null;
}

const objectRootProblem = (schema: unknown) =>
  isObject(schema) && schema.type === 'object'
    ? null
    : `schema must be a JSON Schema of 'type: "object"', got 'type: "${isObject(schema) ? String(schema.type) : 'None'}"'.`;

const IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

function openAiMessageProblem(m: unknown, i: number): [string, string] | null {
  const roles = ['system', 'developer', 'user', 'assistant', 'tool'];
  if (!isObject(m) || typeof m.role !== 'string' || !roles.includes(m.role)) {
    const role = isObject(m) ? String(m.role) : 'None';
    return [
      `Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `messages[${i}].role`,
    ];
  }
  if (typeof m.content === 'string' || (m.content == null && m.role === 'assistant')) return null;
  if (!Array.isArray(m.content)) {
    return [
      `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${typeof m.content} instead.`,
      `messages[${i}].content`,
    ];
  }
  for (const [j, part] of m.content.entries()) {
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') continue;
    if (!isObject(part) || part.type !== 'image_url') {
      const type = isObject(part) ? String(part.type) : 'None';
      return [
        `Invalid value: '${type}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`,
        `messages[${i}].content[${j}].type`,
      ];
    }
    if (m.role !== 'user') {
      return [
        `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${m.role}' contains an image URL.`,
        `messages[${i}]`,
      ];
    }
    const url = isObject(part.image_url) ? part.image_url.url : undefined;
    if (typeof url !== 'string' || !(IMAGE_DATA_URL.test(url) || /^https?:\/\//.test(url))) {
      const param = `messages[${i}].content[${j}].image_url.url`;
      return [
        `Invalid image URL: '${param}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid value.`,
        param,
      ];
    }
  }
  return null;
}

export function refuseOpenAi(req: ModelRequest, apiKey: string | undefined): Refusal {
  const bad = (message: string, param: string | null = null, code: string | null = null): Refusal => ({
    status: 400,
    body: openAiError(message, 'invalid_request_error', param, code),
  });
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions') {
    return { status: 404, body: openAiError(`Invalid URL (${req.method} ${req.path})`) };
  }
  if (apiKey) {
    const auth = String(req.headers.authorization ?? '');
    if (!auth) {
      return {
        status: 401,
        body: openAiError(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
        ),
      };
    }
    const key = auth.replace(/^Bearer\s+/i, '');
    if (key !== apiKey) {
      // The real API names the key it got, masked.
      const masked = `${key.slice(0, 3)}${'*'.repeat(Math.max(0, key.length - 7))}${key.slice(-4)}`;
      const message = `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`;
      return { status: 401, body: openAiError(message, 'invalid_request_error', null, 'invalid_api_key') };
    }
  }
  const body = req.body;
  if (!isObject(body)) {
    return bad(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
    );
  }
  if (typeof body.model !== 'string' || !body.model) return bad('you must provide a model parameter');
  if (body.messages === undefined)
    return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(body.messages)) {
    return bad(
      `Invalid type for 'messages': expected an array of objects, but got ${typeof body.messages} instead.`,
      'messages',
      'invalid_type',
    );
  }
  if (body.messages.length === 0) {
    return bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  for (const [i, m] of body.messages.entries()) {
    const problem = openAiMessageProblem(m, i);
    if (problem) return bad(problem[0], problem[1], 'invalid_value');
  }
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    const n = body[field];
    if (n !== undefined && !(Number.isInteger(n) && (n as number) >= 1)) {
      return bad(
        `Invalid '${field}': integer below minimum value. Expected a value >= 1, but got ${JSON.stringify(n)} instead.`,
        field,
        'integer_below_min_value',
      );
    }
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  const format = body.response_format;
  if (format !== undefined) {
    if (!isObject(format) || !['text', 'json_object', 'json_schema'].includes(String(format.type))) {
      return bad(
        "Invalid value for 'response_format.type'. Supported values are: 'json_object', 'json_schema', and 'text'.",
        'response_format.type',
        'invalid_value',
      );
    }
    if (format.type === 'json_schema') {
      const spec = format.json_schema;
      if (!isObject(spec))
        return bad(
          "Missing required parameter: 'response_format.json_schema'.",
          'response_format.json_schema',
          'missing_required_parameter',
        );
      if (typeof spec.name !== 'string' || !NAME.test(spec.name)) {
        return bad(
          "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
          'response_format.json_schema.name',
          'invalid_value',
        );
      }
      const problem =
        spec.strict === true ? (objectRootProblem(spec.schema) ?? strictSchemaProblem(spec.schema)) : null;
      if (problem)
        return bad(
          `Invalid schema for response_format '${spec.name}': ${problem}`,
          'response_format',
          'invalid_json_schema',
        );
    }
  }
  const tools = body.tools;
  const names: string[] = [];
  if (tools !== undefined) {
    if (!Array.isArray(tools) || tools.length === 0) {
      return bad(
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        'tools',
        'empty_array',
      );
    }
    for (const [i, tool] of tools.entries()) {
      const fn = isObject(tool) && tool.type === 'function' && isObject(tool.function) ? tool.function : undefined;
      if (!fn)
        return bad(
          `Missing required parameter: 'tools[${i}].function'.`,
          `tools[${i}].function`,
          'missing_required_parameter',
        );
      if (typeof fn.name !== 'string' || !NAME.test(fn.name)) {
        return bad(
          `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].function.name`,
          'invalid_value',
        );
      }
      names.push(fn.name);
      const problem =
        fn.parameters === undefined
          ? null
          : (objectRootProblem(fn.parameters) ?? (fn.strict === true ? strictSchemaProblem(fn.parameters) : null));
      if (problem)
        return bad(
          `Invalid schema for function '${fn.name}': ${problem}`,
          `tools[${i}].function.parameters`,
          'invalid_function_parameters',
        );
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (tools === undefined)
      return bad(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        'tool_choice',
      );
    const named =
      isObject(choice) && choice.type === 'function' && isObject(choice.function) ? choice.function.name : undefined;
    if (isObject(choice) ? !names.includes(String(named)) : !['none', 'auto', 'required'].includes(String(choice))) {
      return bad(
        `Invalid value for 'tool_choice': no function named '${String(named)}' in 'tools'.`,
        'tool_choice',
        'invalid_value',
      );
    }
  }
  return null;
}
