// The loopback site the agent tasks run on: plain node:http, pages as small
// HTML strings with inline JS. Each attempt at a task gets a token and its
// own URL space (/r/<token>/...), so what one run submits is recorded apart
// from every other and runs can share the site concurrently. Pages render
// their links and form actions under the attempt's prefix; cookies are
// scoped to it.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** What the site saw a run do: a form submitted, an order placed, a setting saved. */
export interface SiteRecord {
  kind: string;
  data: Record<string, unknown>;
  at: number;
}

/** One request to a page of the site, as a route handler reads it. */
export interface Visit {
  method: string;
  /** The path inside the attempt, e.g. `/clinic/book`. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The fields of a form post (urlencoded); empty otherwise. */
  form: URLSearchParams;
  /** The body of a JSON post (fetch from a page's script); empty otherwise. */
  json: Record<string, unknown>;
  cookies: Record<string, string>;
  /** The attempt's prefix, `/r/<token>`: every link and action starts with it. */
  base: string;
  records: SiteRecord[];
  record(kind: string, data: Record<string, unknown>): void;
  /** How long the slow parts of the site take (a lazy API, a long job). */
  slowMs: number;
}

export type Reply = string | { status?: number; html?: string; json?: unknown; redirect?: string; cookies?: string[] };

export interface Route {
  method?: 'GET' | 'POST';
  /** Segments; `:name` matches one segment into `params.name`. */
  path: string;
  handle(visit: Visit): Reply | Promise<Reply>;
}

export interface Attempt {
  token: string;
  /** The absolute URL of a page of this attempt. */
  url(path: string): string;
  /** What the site recorded for this attempt so far (live). */
  records: SiteRecord[];
}

export interface TaskSite {
  url: string;
  attempt(): Attempt;
  close(): Promise<void>;
}

const STYLE = `body{font:15px/1.4 system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 1rem}
header{border-bottom:1px solid #ccc;margin-bottom:1rem}label{display:block;margin:.4rem 0}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
.error{color:#b00020}.overlay{position:fixed;inset:0;background:#0008;display:flex;align-items:center;justify-content:center}
.overlay>div{background:#fff;padding:1rem 1.5rem;max-width:30rem}[hidden]{display:none!important}
.calendar{border:1px solid #999;padding:.4rem;display:inline-block}`;

/** A whole page: a header naming the site, then the body; `script` runs at the end of the body. */
export function page(brand: string, title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · ${esc(brand)}</title>
<style>${STYLE}</style></head><body><header><strong>${esc(brand)}</strong></header><main><h1>${esc(title)}</h1>
${body}</main>${script ? `<script>${script}</script>` : ''}</body></html>`;
}

export function esc(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/** A labelled input; `attrs` as written (type, placeholder, required...). */
export function field(label: string, name: string, value: unknown = '', attrs = ''): string {
  return `<label>${esc(label)} <input name="${name}" value="${esc(value)}" ${attrs}></label>`;
}

/** Errors above a form, or nothing. */
export function errorList(errors: string[]): string {
  return errors.length ? `<ul class="error" role="alert">${errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>` : '';
}

/** A handler for what a page's script posts: the JSON body recorded as `kind`, and a plain ok. */
export function recordsJson(kind: string) {
  return (v: Visit): Reply => {
    v.record(kind, v.json);
    return { json: { ok: true } };
  };
}

/** Page links under a paged list: Previous, the numbers, Next. */
export function pager(v: Visit, path: string, current: number, pages: number): string {
  const link = (n: number, text: string) =>
    n === current ? `<strong aria-current="page">${text}</strong>` : `<a href="${v.base}${path}?page=${n}">${text}</a>`;
  const numbers = Array.from({ length: pages }, (_, i) => link(i + 1, String(i + 1)));
  return `<nav aria-label="Pages">${current > 1 ? link(current - 1, 'Previous') : ''} ${numbers.join(' ')} ${current < pages ? link(current + 1, 'Next') : ''}</nav>`;
}

/** The `?page=` slice of `all`, `size` a page. */
export function paged<T>(v: Visit, all: T[], size: number): { rows: T[]; current: number; pages: number } {
  const pages = Math.ceil(all.length / size);
  const current = Math.min(pages, Math.max(1, Number(v.query.get('page')) || 1));
  return { rows: all.slice((current - 1) * size, current * size), current, pages };
}

function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const seg = got[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(seg);
    else if (part !== seg) return undefined;
  }
  return params;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies[part.slice(0, at).trim()] = decodeURIComponent(part.slice(at + 1).trim());
  }
  return cookies;
}

function send(res: ServerResponse, reply: Reply): void {
  const r = typeof reply === 'string' ? { html: reply } : reply;
  const headers: Record<string, string | string[]> = { 'cache-control': 'no-store' };
  if (r.cookies) headers['set-cookie'] = r.cookies;
  if (r.redirect) {
    res.writeHead(303, { ...headers, location: r.redirect }).end();
  } else if (r.json !== undefined) {
    res.writeHead(r.status ?? 200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(r.json));
  } else {
    res.writeHead(r.status ?? 200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(r.html ?? '');
  }
}

/** Serves `routes` on 127.0.0.1 at a free port. */
export async function serveTaskSite(routes: Route[], options: { slowMs?: number } = {}): Promise<TaskSite> {
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method ?? 'GET'} ${r.path}`;
    if (seen.has(key)) throw new Error(`two routes for ${key}`);
    seen.add(key);
  }
  const attempts = new Map<string, SiteRecord[]>();
  const slowMs = options.slowMs ?? 3_000;
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://site');
      const [, prefix, token, ...rest] = url.pathname.split('/');
      const records = prefix === 'r' && token ? attempts.get(token) : undefined;
      const path = `/${rest.join('/')}`;
      const method = req.method === 'POST' ? 'POST' : 'GET';
      const found = records && routes.find((r) => (r.method ?? 'GET') === method && match(r.path, path));
      if (!records || !found) {
        await readBody(req);
        return send(res, { status: 404, html: page('Not found', 'Page not found', '<p>There is no such page.</p>') });
      }
      const body = method === 'POST' ? await readBody(req) : '';
      const isJson = (req.headers['content-type'] ?? '').startsWith('application/json');
      const visit: Visit = {
        method,
        path,
        params: match(found.path, path) ?? {},
        query: url.searchParams,
        form: new URLSearchParams(isJson ? '' : body),
        json: isJson && body ? (JSON.parse(body) as Record<string, unknown>) : {},
        cookies: parseCookies(req.headers.cookie),
        base: `/r/${token}`,
        records,
        record: (kind, data) => records.push({ kind, data, at: Date.now() }),
        slowMs,
      };
      send(res, await found.handle(visit));
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: origin,
    attempt() {
      const token = randomBytes(6).toString('hex');
      const records: SiteRecord[] = [];
      attempts.set(token, records);
      return { token, url: (path) => `${origin}/r/${token}${path}`, records };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
