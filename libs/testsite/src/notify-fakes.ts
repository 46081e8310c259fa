// Stand-ins for the places a monitor's notifications go, on loopback, each
// speaking its real wire format and refusing what the real one refuses:
// Discord's execute-webhook endpoint, Slack's incoming webhooks, and a
// receiver of Standard Webhooks that checks the signature.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body as sent. */
  raw: string;
  /** The body as JSON (accepted requests are JSON). */
  body: Record<string, unknown>;
  at: number;
}

export interface FakeTarget {
  /** Scheme, host and port: the origin the monitor service is told about (DISCORD_API_URL...). */
  readonly origin: string;
  /** A URL of the target's own shape that it accepts. */
  readonly hookUrl: string;
  /** Every accepted request, oldest first. */
  readonly received: Received[];
  /** Every refused request: the status answered and why. */
  readonly rejected: { status: number; reason: string }[];
  /** Statuses to answer the next requests with instead (a 429 carries Retry-After: 1). */
  readonly failNext: number[];
  close(): Promise<void>;
}

type Verdict = { status: number; body: string; type: string } | null;

async function serve(
  host: string,
  hookPath: string,
  judge: (path: string, raw: string, headers: IncomingHttpHeaders) => Verdict,
  accepted: (res: ServerResponse, query: URLSearchParams, received: Received) => void,
  failure: (res: ServerResponse, status: number) => void,
): Promise<FakeTarget> {
  const received: Received[] = [];
  const rejected: FakeTarget['rejected'] = [];
  const failNext: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      const forced = failNext.shift();
      if (forced !== undefined) {
        rejected.push({ status: forced, reason: 'told to fail' });
        return failure(res, forced);
      }
      if (req.method !== 'POST') {
        rejected.push({ status: 405, reason: 'not a POST' });
        return void res.writeHead(405).end();
      }
      const verdict = judge(url.pathname, raw, req.headers);
      if (verdict) {
        rejected.push({ status: verdict.status, reason: verdict.body });
        return void res.writeHead(verdict.status, { 'content-type': verdict.type }).end(verdict.body);
      }
      const item = { path: url.pathname, headers: req.headers, raw, body: JSON.parse(raw), at: Date.now() };
      received.push(item);
      accepted(res, url.searchParams, item);
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hookUrl: `${origin}${hookPath}`,
    received,
    rejected,
    failNext,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const jsonBody = (raw: string, headers: IncomingHttpHeaders): Record<string, unknown> | undefined => {
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) return undefined;
  try {
    const parsed = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

const DISCORD_ID = '112233445566778899';
const DISCORD_TOKEN = 'fake-discord-token_abcdefghijklmnopqrstuvwxyz';

/** Discord's error body: `{ code, message }`, with `errors` for an invalid form body. */
const discordError = (status: number, code: number, message: string, field?: string, limit?: number): Verdict => ({
  status,
  type: 'application/json',
  body: JSON.stringify({
    code,
    message,
    ...(field && {
      errors: {
        [field]: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${limit} or fewer in length.` }] },
      },
    }),
  }),
});

/**
 * Discord's `POST /api/webhooks/{id}/{token}`: 204 (200 and the message with
 * `?wait=true`); 404 Unknown Webhook, 401 Invalid Webhook Token, 400 for an
 * empty message or a form over Discord's limits (content 2,000; 10 embeds;
 * title 256; description 4,096; 25 fields of 256/1,024; 6,000 in all);
 * 429 with `retry_after` in seconds.
 */
export function startFakeDiscord(host = '127.0.0.1'): Promise<FakeTarget> {
  return serve(
    host,
    `/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`,
    (path, raw, headers) => {
      const m = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([\w-]+)$/.exec(path);
      if (!m || m[1] !== DISCORD_ID) return discordError(404, 10015, 'Unknown Webhook');
      if (m[2] !== DISCORD_TOKEN) return discordError(401, 50027, 'Invalid Webhook Token');
      const body = jsonBody(raw, headers);
      if (!body) return discordError(400, 50109, 'The request body contains invalid JSON.');
      const content = typeof body.content === 'string' ? body.content : '';
      const embeds = Array.isArray(body.embeds) ? (body.embeds as Record<string, unknown>[]) : [];
      if (!content && embeds.length === 0) return discordError(400, 50006, 'Cannot send an empty message');
      if (content.length > 2_000) return discordError(400, 50035, 'Invalid Form Body', 'content', 2_000);
      if (embeds.length > 10) return discordError(400, 50035, 'Invalid Form Body', 'embeds', 10);
      let total = 0;
      for (const [i, e] of embeds.entries()) {
        const text = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : '');
        if (text('title').length > 256) return discordError(400, 50035, 'Invalid Form Body', `embeds.${i}.title`, 256);
        if (text('description').length > 4_096)
          return discordError(400, 50035, 'Invalid Form Body', `embeds.${i}.description`, 4_096);
        const fields = Array.isArray(e.fields) ? (e.fields as { name?: string; value?: string }[]) : [];
        if (fields.length > 25) return discordError(400, 50035, 'Invalid Form Body', `embeds.${i}.fields`, 25);
        for (const f of fields) {
          if ((f.name ?? '').length > 256 || (f.value ?? '').length > 1_024 || !f.name || !f.value)
            return discordError(400, 50035, 'Invalid Form Body', `embeds.${i}.fields`, 1_024);
          total += f.name.length + f.value.length;
        }
        total += text('title').length + text('description').length;
      }
      if (total > 6_000) return discordError(400, 50035, 'Invalid Form Body', 'embeds', 6_000);
      return null;
    },
    (res, query, item) => {
      if (query.get('wait') !== 'true') return void res.writeHead(204).end();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: String(Date.now()), webhook_id: DISCORD_ID, ...item.body }));
    },
    (res, status) => {
      if (status !== 429) return void res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'x-ratelimit-remaining': '0' })
        .end(JSON.stringify({ message: 'You are being rate limited.', retry_after: 1, global: false }));
    },
  );
}

const SLACK_PATH = '/services/T0FAKE000/B0FAKE000/fakeSlackToken1234567890';

/**
 * Slack's incoming webhook, `POST /services/T…/B…/…`: 200 `ok` (text);
 * 404 `no_service` for another hook, 400 `invalid_payload` (not JSON),
 * `no_text` (neither text nor blocks) or `invalid_blocks` (over 50 blocks, a
 * section's text over 3,000, a context over 10 elements, an unknown type);
 * 429 with Retry-After.
 */
export function startFakeSlack(host = '127.0.0.1'): Promise<FakeTarget> {
  const text = (status: number, body: string): Verdict => ({ status, body, type: 'text/html' });
  return serve(
    host,
    SLACK_PATH,
    (path, raw, headers) => {
      if (path !== SLACK_PATH) return text(404, 'no_service');
      const body = jsonBody(raw, headers);
      if (!body) return text(400, 'invalid_payload');
      const blocks = Array.isArray(body.blocks) ? (body.blocks as Record<string, unknown>[]) : undefined;
      if (!body.text && !blocks?.length) return text(400, 'no_text');
      if (blocks && blocks.length > 50) return text(400, 'invalid_blocks');
      for (const b of blocks ?? []) {
        const t = b.text as { type?: string; text?: string } | undefined;
        if (b.type === 'section') {
          if (!t || !['mrkdwn', 'plain_text'].includes(t.type ?? '') || !t.text || t.text.length > 3_000)
            return text(400, 'invalid_blocks');
        } else if (b.type === 'context') {
          const elements = b.elements as unknown[] | undefined;
          if (!elements?.length || elements.length > 10) return text(400, 'invalid_blocks');
        } else if (!['divider', 'header', 'image', 'actions', 'rich_text'].includes(String(b.type)))
          return text(400, 'invalid_blocks');
      }
      return null;
    },
    (res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('ok'),
    (res, status) =>
      void res
        .writeHead(status, { 'content-type': 'text/html', ...(status === 429 && { 'retry-after': '1' }) })
        .end(status === 429 ? 'rate_limited' : 'internal_error'),
  );
}

/**
 * A receiver of Standard Webhooks at `/hook`: 204 for a request whose
 * `webhook-signature` verifies under `secret` (set once the monitor is made)
 * within the timestamp tolerance; 401 otherwise.
 */
export async function startFakeWebhook(host = '127.0.0.1'): Promise<FakeTarget & { secret: string }> {
  const state = { secret: '' };
  const fake = await serve(
    host,
    '/hook',
    (path, raw, headers) => {
      if (path !== '/hook') return { status: 404, body: 'not found', type: 'text/plain' };
      try {
        new Webhook(state.secret).verify(raw, headers as Record<string, string>);
        return null;
      } catch (err) {
        return { status: 401, body: `bad signature: ${(err as Error).message}`, type: 'text/plain' };
      }
    },
    (res) => void res.writeHead(204).end(),
    (res, status) => void res.writeHead(status, status === 429 ? { 'retry-after': '1' } : {}).end(),
  );
  return Object.defineProperty(fake, 'secret', {
    get: () => state.secret,
    set: (v: string) => {
      state.secret = v;
    },
    enumerable: true,
  }) as FakeTarget & { secret: string };
}
