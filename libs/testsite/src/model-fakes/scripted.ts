// What both model fakes share: the scripted replies, the request log, and
// the loopback server that refuses, answers or holds each request.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as parsed JSON; undefined when it was not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: a provider's request body, read by tests at any depth
  body: any;
  /** The status answered; 0 while held (a stall). */
  status: number;
  /** The tokens an accepted answer reported: input from the request's size, output from the answer's, 4 characters a token. */
  usage?: { inputTokens: number; outputTokens: number };
}

const DIRECTIVE = Symbol('model reply');
type Directive =
  | { [DIRECTIVE]: 'fail'; status: number; body?: unknown; headers?: Record<string, string> }
  | { [DIRECTIVE]: 'text'; text: string; where: 'content' | 'tool' }
  | { [DIRECTIVE]: 'stall' };

/** Replies other than a step's JSON (any other value is the step, answered as the tool's input or as content). */
export const modelReply = {
  /** Fail with this status; the body defaults to the provider's own error body for it. */
  fail: (status: number, options: { body?: unknown; headers?: Record<string, string> } = {}): Directive => ({
    [DIRECTIVE]: 'fail',
    status,
    ...options,
  }),
  /** Answer this raw text as the message's content, or (`tool`) as the tool call's arguments (OpenAI). */
  text: (text: string, where: 'content' | 'tool' = 'content'): Directive => ({ [DIRECTIVE]: 'text', text, where }),
  /** Never answer: hold the request until the client gives up. */
  stall: (): Directive => ({ [DIRECTIVE]: 'stall' }),
};

export interface FakeModelOptions {
  /** The key requests must carry; without it any key or none passes. */
  apiKey?: string;
  /** The answers: a function of each accepted request, or a queue taken in order. */
  reply: ((request: ModelRequest) => unknown) | unknown[];
}

export interface FakeModel {
  /** The base a client is given: `…/v1` for OpenAI, the origin for Anthropic. */
  readonly url: string;
  /** Every request, refused ones included, oldest first. */
  readonly requests: ModelRequest[];
  close(): Promise<void>;
}

export type Refusal = { status: number; body: unknown } | null;
export type Answer = { step: unknown } | { text: string; where: 'content' | 'tool' };
export type Usage = NonNullable<ModelRequest['usage']>;

export interface Provider {
  refuse(req: ModelRequest, apiKey: string | undefined): Refusal;
  errorBody(status: number): unknown;
  /** Writes the 200 answer, reporting `usage`. */
  answer(req: ModelRequest, answer: Answer, usage: Usage, res: ServerResponse): void;
}

const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

export async function serve(provider: Provider, options: FakeModelOptions, base: (origin: string) => string) {
  const requests: ModelRequest[] = [];
  const queue = Array.isArray(options.reply) ? [...options.reply] : undefined;
  const next = (req: ModelRequest): unknown => {
    if (!queue) return (options.reply as (r: ModelRequest) => unknown)(req);
    if (queue.length === 0) return modelReply.fail(500);
    return queue.shift();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(c);
    });
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const record: ModelRequest = {
        method: req.method ?? '',
        path: new URL(req.url ?? '/', 'http://fake').pathname,
        headers: req.headers,
        body: parse(raw),
        status: 0,
      };
      requests.push(record);
      const refusal: Refusal =
        size > MAX_REQUEST_BYTES
          ? { status: 413, body: provider.errorBody(413) }
          : provider.refuse(record, options.apiKey);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        record.status = status;
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      };
      if (refusal) return send(refusal.status, refusal.body);
      let reply: unknown;
      try {
        reply = await next(record);
      } catch (e) {
        reply = modelReply.fail(500, { body: provider.errorBody(500) });
        console.error('model fake: the scripted reply threw', e);
      }
      const directive = isDirective(reply) ? reply : undefined;
      if (directive?.[DIRECTIVE] === 'stall') return;
      if (directive?.[DIRECTIVE] === 'fail') {
        return send(directive.status, directive.body ?? provider.errorBody(directive.status), directive.headers);
      }
      const answer: Answer = directive?.[DIRECTIVE] === 'text' ? directive : { step: reply };
      const { messages, system, tools } = record.body;
      record.status = 200;
      record.usage = {
        inputTokens: Math.ceil(JSON.stringify([system ?? '', messages, tools ?? []]).length / 4),
        outputTokens: Math.max(1, Math.ceil(stepText(answer).length / 4)),
      };
      provider.answer(record, answer, record.usage, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeModel = {
    url: base(origin),
    requests,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
  return fake;
}

const isDirective = (v: unknown): v is Directive => typeof v === 'object' && v !== null && DIRECTIVE in v;

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const id = (prefix: string) => `${prefix}${randomBytes(12).toString('base64url')}`;
export const stepText = (answer: Answer) => ('step' in answer ? JSON.stringify(answer.step) : answer.text);
