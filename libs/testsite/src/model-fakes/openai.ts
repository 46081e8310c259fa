// OpenAI's `POST /v1/chat/completions`: a chat.completion object, or with
// `stream` SSE chunks that end with a usage chunk and `data: [DONE]`.
import type { ServerResponse } from 'node:http';
import { openAiErrorBody, refuseOpenAi } from './openai-rules.js';
import {
  type Answer,
  type FakeModel,
  type FakeModelOptions,
  id,
  type ModelRequest,
  type Provider,
  serve,
  stepText,
  type Usage,
} from './scripted.js';

function answerOpenAi(req: ModelRequest, answer: Answer, usage: Usage, res: ServerResponse): void {
  const body = req.body;
  const forced: string | undefined = body.tool_choice?.function?.name;
  const toolName: string | undefined = forced ?? body.tools?.[0]?.function?.name;
  const asTool = toolName !== undefined && ('step' in answer || answer.where === 'tool');
  const text = stepText(answer);
  // A function forced by name ends with `stop`, not `tool_calls`, as the real API does.
  const finish = asTool && !forced ? 'tool_calls' : 'stop';
  const head = { id: id('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: body.model };
  const usageBody = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
  const callId = id('call_');
  if (body.stream !== true) {
    const message = asTool
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: toolName, arguments: text } }],
        }
      : { role: 'assistant', content: text };
    const completion = {
      ...head,
      object: 'chat.completion',
      choices: [
        { index: 0, message: { ...message, refusal: null, annotations: [] }, logprobs: null, finish_reason: finish },
      ],
      usage: usageBody,
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    return;
  }
  const withUsage = body.stream_options?.include_usage === true;
  const event = (choices: unknown[], chunkUsage: unknown = null) =>
    `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', system_fingerprint: 'fp_fake', choices, ...(withUsage ? { usage: chunkUsage } : {}) })}\n\n`;
  const delta = (d: unknown, finishReason: string | null = null) => [
    { index: 0, delta: d, logprobs: null, finish_reason: finishReason },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(
    event(
      delta(
        asTool
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: toolName, arguments: '' } }],
              refusal: null,
            }
          : { role: 'assistant', content: '', refusal: null },
      ),
    ),
  );
  for (let at = 0; at < text.length; at += 5) {
    const piece = text.slice(at, at + 5);
    res.write(
      event(delta(asTool ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece })),
    );
  }
  res.write(event(delta({}, finish)));
  if (withUsage) res.write(event([], usageBody));
  res.end('data: [DONE]\n\n');
}

/** OpenAI's chat completions; `url` ends in `/v1`. */
export function startFakeOpenAi(options: FakeModelOptions): Promise<FakeModel> {
  const provider: Provider = {
    refuse: refuseOpenAi,
    errorBody: openAiErrorBody,
    answer: answerOpenAi,
  };
  return serve(provider, options, (origin) => `${origin}/v1`);
}
