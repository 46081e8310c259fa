// Stand-ins for the third-party search APIs the platform can use, on
// loopback, answering in each one's real wire format: SearXNG's
// `GET /search?format=json` and Brave Search's `GET /res/v1/web/search`.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Indexed {
  url: string;
  title: string;
  content: string;
}

export interface FakeSearch {
  readonly url: string;
  /** Every request's path and query, and its headers, oldest first. */
  readonly requests: { path: string; query: URLSearchParams; headers: IncomingMessage['headers'] }[];
  /** Answer the next requests with this HTTP status and body instead of results (null: answer normally). */
  failWith: { status: number; body: string; headers?: Record<string, string> } | null;
  close(): Promise<void>;
}

const matches = (doc: Indexed, q: string) => {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = `${doc.title} ${doc.content}`.toLowerCase();
  return words.some((w) => hay.includes(w));
};

async function serve(
  handle: (path: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string; requests: FakeSearch['requests'] }> {
  const requests: FakeSearch['requests'] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    handle(url.pathname, url.searchParams, req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** The handle a test holds: its URL, what it was asked, a switch to fail, and close. */
function handle(
  url: string,
  requests: FakeSearch['requests'],
  server: Server,
  fake: { failWith: FakeSearch['failWith'] },
): FakeSearch {
  return {
    url,
    requests,
    get failWith() {
      return fake.failWith;
    },
    set failWith(v) {
      fake.failWith = v;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * SearXNG with the JSON format enabled: 10 results a page (`pageno`), each
 * with SearXNG's fields (`url`, `title`, `content`, `engine`, `score`...).
 */
export async function startFakeSearxng(corpus: readonly Indexed[]): Promise<FakeSearch> {
  const fake: { failWith: FakeSearch['failWith'] } = { failWith: null };
  const { server, url, requests } = await serve((path, query, _req, res) => {
    if (fake.failWith) {
      res.writeHead(fake.failWith.status, { 'content-type': 'text/html', ...fake.failWith.headers });
      res.end(fake.failWith.body);
      return;
    }
    if (path !== '/search') return void res.writeHead(404).end('Not Found');
    // SearXNG answers 403 when the json format is not enabled in its settings.
    if (query.get('format') !== 'json') return void res.writeHead(403).end('Forbidden');
    const q = query.get('q') ?? '';
    const page = Math.max(1, Number(query.get('pageno') ?? 1));
    const hits = corpus.filter((d) => matches(d, q));
    const results = hits.slice((page - 1) * 10, page * 10).map((d, i) => ({
      url: d.url,
      title: d.title,
      content: d.content.slice(0, 200),
      engine: 'duckduckgo',
      parsed_url: ['http', new URL(d.url).host, new URL(d.url).pathname, '', '', ''],
      template: 'default.html',
      engines: ['duckduckgo'],
      positions: [(page - 1) * 10 + i + 1],
      score: 1 / ((page - 1) * 10 + i + 1),
      category: 'general',
    }));
    json(res, 200, {
      query: q,
      number_of_results: hits.length,
      results,
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  });
  return handle(url, requests, server, fake);
}

/**
 * Brave Search's web endpoint: `count` (at most 20) results from `offset`
 * pages in, the token in `X-Subscription-Token`, errors as Brave's
 * `ErrorResponse` JSON.
 */
export async function startFakeBrave(corpus: readonly Indexed[], token: string): Promise<FakeSearch> {
  const fake: { failWith: FakeSearch['failWith'] } = { failWith: null };
  const { server, url, requests } = await serve((path, query, req, res) => {
    if (fake.failWith) {
      res.writeHead(fake.failWith.status, { 'content-type': 'application/json', ...fake.failWith.headers });
      res.end(fake.failWith.body);
      return;
    }
    if (path !== '/res/v1/web/search') return void json(res, 404, { type: 'ErrorResponse' });
    if (req.headers['x-subscription-token'] !== token) {
      return void json(res, 401, {
        type: 'ErrorResponse',
        error: {
          id: 'fake',
          status: 401,
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          detail: 'The provided subscription token is invalid.',
        },
        time: Date.now(),
      });
    }
    const q = query.get('q') ?? '';
    const count = Math.min(20, Number(query.get('count') ?? 20));
    const offset = Number(query.get('offset') ?? 0);
    const hits = corpus.filter((d) => matches(d, q));
    const page = hits.slice(offset * count, (offset + 1) * count);
    json(res, 200, {
      type: 'search',
      query: { original: q, more_results_available: (offset + 1) * count < hits.length },
      web: {
        type: 'search',
        results: page.map((d) => ({
          type: 'search_result',
          title: d.title,
          url: d.url,
          description: d.content.slice(0, 200),
          is_source_local: false,
          language: 'en',
          family_friendly: true,
        })),
      },
    });
  });
  return handle(`${url}/res/v1/web/search`, requests, server, fake);
}
