import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { pdf, png } from './binary.js';
import { CHARSET_PAGES, charsetBody } from './charsets.js';
import { childSitemap, type RobotsOptions, robotsTxt, sitemap, sitemapIndex } from './crawl-files.js';
import { gzipBomb, hang, opaqueBytes, streamHuge } from './heavy.js';
import {
  articlePage,
  errorPage,
  homePage,
  loopPage,
  renderedPage,
  type SiteModel,
  staticPage,
  trapPage,
  variantsPage,
} from './pages.js';
import { redirectFor, sendRedirect } from './redirects.js';
import type { Encoding, Responder } from './respond.js';

export interface RouteContext {
  readonly site: SiteModel;
  readonly respond: Responder;
  readonly robots: RobotsOptions;
  readonly slowMs: number;
  readonly hugeBytes: number;
  readonly bombBytes: number;
  readonly sitemapChunk: number;
  readonly sitemapDelayMs: number;
  readonly sitemapsHeldUntil: Promise<void> | undefined;
  /** Runs `fn` after `ms` unless the site closes first. */
  later(ms: number, fn: () => void): void;
}

type Handler = (ctx: RouteContext, req: IncomingMessage, res: ServerResponse, m: RegExpExecArray, url: URL) => void;

/** A sitemap file (404 when `body` has none), answered after the site's sitemap delay. */
function sitemapFile(
  body: (c: RouteContext, m: RegExpExecArray) => string | Buffer | undefined,
  type = 'application/xml',
): Handler {
  return (c, req, res, m, url) => {
    const answer = () => {
      const content = body(c, m);
      if (content === undefined) return notFound(c, req, res, url);
      c.respond.send(req, res, 200, type, content, typeof content === 'string' ? undefined : { compress: false });
    };
    const delayed = () => (c.sitemapDelayMs > 0 ? c.later(c.sitemapDelayMs, answer) : answer());
    if (c.sitemapsHeldUntil) void c.sitemapsHeldUntil.then(() => res.destroyed || delayed());
    else delayed();
  };
}

const ENCODINGS = new Set<Encoding>(['gzip', 'x-gzip', 'deflate', 'deflate-raw', 'br', 'zstd', 'identity']);
const MOBILE = /Mobile|Android|iPhone|iPad/i;
const FILES: Record<string, { type: string | undefined; body: () => Buffer }> = {
  'report.pdf': { type: 'application/pdf', body: pdf },
  'image.png': { type: 'image/png', body: png },
  'data.bin': { type: 'application/octet-stream', body: () => opaqueBytes(4096) },
  'report-untyped': { type: undefined, body: pdf },
  'notes.txt': { type: 'text/plain; charset=utf-8', body: () => Buffer.from('Plain notes from the archive.\n') },
  'data.json': { type: 'application/json', body: () => Buffer.from('{"archive":"county","items":3}\n') },
};

/** A page whose own requests go to the cloud metadata service and private ranges (for the browser's egress guard). */
const PRIVATE_PROBE = `<!doctype html><html><head><title>Probe</title></head><body>
<main><h1>Probe</h1><p>This page asks for addresses a browser of ours must never reach.</p>
<img src="http://10.0.0.2/pixel.png" alt=""></main>
<script>
fetch('http://169.254.169.254/latest/meta-data/').catch(() => {});
fetch('http://10.0.0.1/internal').catch(() => {});
</script></body></html>`;

const ROUTES: readonly (readonly [RegExp, Handler])[] = [
  [/^\/$/, (c, req, res) => c.respond.html(req, res, homePage(c.site))],
  [/^\/probe\/private-fetch$/, (c, req, res) => c.respond.html(req, res, PRIVATE_PROBE)],
  [
    /^\/articles\/(\d+)\/?$/,
    (c, req, res, m, url) => {
      const i = Number(m[1]);
      if (i >= c.site.pages) return notFound(c, req, res, url);
      c.respond.html(req, res, articlePage(c.site, c.site.article(i)));
    },
  ],
  [
    /^\/rendered\/(\d+)$/,
    (c, req, res, m, url) => {
      const i = Number(m[1]);
      if (i >= c.site.rendered) return notFound(c, req, res, url);
      c.respond.html(req, res, renderedPage(c.site, i));
    },
  ],
  [
    /^\/(about|contact|privacy|terms)$/,
    (c, req, res, _m, url) => c.respond.html(req, res, staticPage(c.site, url.pathname)),
  ],
  [/^\/private\/secret$/, (c, req, res, _m, url) => c.respond.html(req, res, staticPage(c.site, url.pathname))],
  [/^\/variants$/, (c, req, res) => c.respond.html(req, res, variantsPage(c.site))],
  [/^\/loop\/([0-2])$/, (c, req, res, m) => c.respond.html(req, res, loopPage(c.site, Number(m[1])))],
  [/^\/trap\/(\d{1,6})$/, (c, req, res, m) => c.respond.html(req, res, trapPage(c.site, Number(m[1])))],
  [
    /^\/robots\.txt$/,
    (c, req, res) => c.respond.send(req, res, 200, 'text/plain; charset=utf-8', robotsTxt(c.site, c.robots)),
  ],
  [/^\/sitemap\.xml$/, sitemapFile((c) => sitemap(c.site))],
  [/^\/sitemap\.xml\.gz$/, sitemapFile((c) => gzipSync(sitemap(c.site)), 'application/gzip')],
  [/^\/sitemap_index\.xml$/, sitemapFile((c) => sitemapIndex(c.site, c.sitemapChunk))],
  [/^\/sitemaps\/pages-(\d+)\.xml$/, sitemapFile((c, m) => childSitemap(c.site, c.sitemapChunk, Number(m[1])))],
  [
    /^\/redirect\/(.+)$/,
    (c, req, res, m, url) => {
      const r = redirectFor(m[1] as string, url.searchParams, c.site.origin);
      if (!r) return notFound(c, req, res, url);
      sendRedirect(req, res, r);
    },
  ],
  [
    /^\/status\/(\d{3})$/,
    (c, req, res, m, url) => c.respond.html(req, res, errorPage(c.site, Number(m[1]), url.pathname), Number(m[1])),
  ],
  [
    /^\/slow(?:\/(\d{1,6}))?$/,
    (c, req, res, m) => c.later(m[1] ? Number(m[1]) : c.slowMs, () => c.respond.html(req, res, homePage(c.site))),
  ],
  [/^\/hang$/, (_c, _req, res) => hang(res)],
  [/^\/hang-headers$/, () => {}],
  [/^\/huge$/, (c, _req, res) => streamHuge(res, c.hugeBytes, true)],
  [/^\/huge\/chunked$/, (c, _req, res) => streamHuge(res, c.hugeBytes, false)],
  [
    /^\/bomb\.gz$/,
    (c, req, res) =>
      c.respond.send(req, res, 200, 'text/html', gzipBomb(c.bombBytes), {
        compress: false,
        headers: { 'content-encoding': 'gzip' },
      }),
  ],
  [
    /^\/compressed\/([a-z-]+)$/,
    (c, req, res, m, url) => {
      const encoding = m[1] as Encoding;
      if (!ENCODINGS.has(encoding)) return notFound(c, req, res, url);
      c.respond.html(req, res, articlePage(c.site, c.site.article(0)), 200, { encoding });
    },
  ],
  [
    /^\/charset\/([\w-]+)$/,
    (c, req, res, _m, url) => {
      const page = CHARSET_PAGES.find((p) => p.path === url.pathname);
      if (!page) return notFound(c, req, res, url);
      c.respond.send(req, res, 200, page.contentType, charsetBody(page));
    },
  ],
  [
    /^\/files\/([\w.-]+)$/,
    (c, req, res, m, url) => {
      const file = FILES[m[1] as string];
      if (!file) return notFound(c, req, res, url);
      c.respond.send(req, res, 200, file.type, file.body(), { compress: false });
    },
  ],
  [
    /^\/ua$/,
    (c, req, res) => {
      const mobile = MOBILE.test(req.headers['user-agent'] ?? '');
      const body = `<!doctype html><html><head><title>Layout</title></head><body><p id="layout">${mobile ? 'mobile' : 'desktop'}</p></body></html>`;
      c.respond.html(req, res, body, 200, { compress: false, headers: { vary: 'User-Agent' } });
    },
  ],
  [
    /^\/headers$/,
    (c, req, res) =>
      c.respond.send(req, res, 200, 'application/json', JSON.stringify(req.headers), { compress: false }),
  ],
];

export function route(ctx: RouteContext, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', ctx.site.origin);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    path = url.pathname;
  }
  for (const [pattern, handler] of ROUTES) {
    const m = pattern.exec(path);
    if (m) {
      handler(ctx, req, res, m, url);
      return;
    }
  }
  notFound(ctx, req, res, url);
}

function notFound(ctx: RouteContext, req: IncomingMessage, res: ServerResponse, url: URL): void {
  ctx.respond.html(req, res, errorPage(ctx.site, 404, url.pathname), 404);
}
