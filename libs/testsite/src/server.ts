import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Article } from './content.js';
import { sitePaths } from './crawl-files.js';
import { newSiteModel } from './pages.js';
import { Responder } from './respond.js';
import { route } from './routes.js';
import { SiteStats } from './stats.js';

export interface TestSiteOptions {
  /** Generated articles (`/articles/0` .. `/articles/{pages-1}`). Default 50. */
  pages?: number;
  /** Same seed, same site, byte for byte. Default 1. */
  seed?: number;
  /** Script-rendered pages (`/rendered/{n}`). Default 5. */
  rendered?: number;
  /** Whether the home page links to the test-only pages (loops, trap, redirects, errors, files). Default true. */
  extras?: boolean;
  /** robots.txt `Disallow` lines for `User-agent: *`. Default `['/private/']`. */
  disallow?: readonly string[];
  /** robots.txt `Crawl-delay` in seconds; none by default. */
  crawlDelay?: number;
  /** Replaces the generated robots.txt. */
  robotsTxt?: string;
  /** Delay of `/slow` in ms (`/slow/{ms}` picks its own). Default 2000. */
  slowMs?: number;
  /** Size of `/huge` and `/huge/chunked`. Default 20 MB. */
  hugeBytes?: number;
  /** Inflated size of `/bomb.gz`. Default 64 MB. */
  bombBytes?: number;
  /** URLs per child sitemap of `/sitemap_index.xml`. Default 100. */
  sitemapChunk?: number;
  /** Delay of every sitemap file in ms, as a big site's generated sitemaps take. Default 0. */
  sitemapDelayMs?: number;
  /** Sitemap files are answered only once this resolves (then after `sitemapDelayMs`): a test decides when. */
  sitemapsHeldUntil?: Promise<void>;
  /** Compress ordinary pages when the client accepts gzip or br. Default true. */
  compress?: boolean;
  /** Delay before every response, like a real server's think time; makes concurrency visible in `stats`. Default 0. */
  latencyMs?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Host name used in `url` and absolute links, e.g. `localhost`. Default: `host`. */
  hostname?: string;
  /** Port; default a free one. */
  port?: number;
}

export interface TestSite {
  /** The origin, without a trailing slash: `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  readonly stats: SiteStats;
  /** Every page a crawl from `/` reaches when `extras` is off: home, 4 static pages, the articles. */
  readonly paths: readonly string[];
  /** The generated article behind `/articles/{index}`. */
  article(index: number): Article;
  /** The article `/rendered/{index}` shows once its script has run. */
  renderedArticle(index: number): Article;
  /** Stops listening and cuts every open connection, the hanging ones included. */
  close(): Promise<void>;
}

export async function startTestSite(options: TestSiteOptions = {}): Promise<TestSite> {
  const host = options.host ?? '127.0.0.1';
  const stats = new SiteStats();
  const timers = new Set<NodeJS.Timeout>();
  const respond = new Responder(options.compress ?? true);
  const latencyMs = options.latencyMs ?? 0;
  // The origin is known only once listening; routes read it through the model.
  let site = newSiteModel({ origin: '', seed: 1, pages: 0, rendered: 0, extras: true });
  const ctx = {
    get site() {
      return site;
    },
    respond,
    robots: {
      disallow: options.disallow ?? ['/private/'],
      crawlDelay: options.crawlDelay,
      robotsTxt: options.robotsTxt,
    },
    slowMs: options.slowMs ?? 2000,
    hugeBytes: options.hugeBytes ?? 20 * 1024 * 1024,
    bombBytes: options.bombBytes ?? 64 * 1024 * 1024,
    sitemapChunk: options.sitemapChunk ?? 100,
    sitemapDelayMs: options.sitemapDelayMs ?? 0,
    sitemapsHeldUntil: options.sitemapsHeldUntil,
    later(ms: number, fn: () => void) {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    },
  };

  const server = createServer((req, res) => {
    const done = stats.begin(req.url ?? '/', String(req.headers.host ?? ''));
    res.on('close', done);
    const serve = () => {
      try {
        route(ctx, req, res);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`test site bug: ${(err as Error).message}`);
      }
    };
    if (latencyMs > 0) ctx.later(latencyMs, serve);
    else serve();
  });
  server.keepAliveTimeout = 5000;
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const name = options.hostname ?? host;
  const url = `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
  site = newSiteModel({
    origin: url,
    seed: options.seed ?? 1,
    pages: options.pages ?? 50,
    rendered: options.rendered ?? 5,
    extras: options.extras ?? true,
  });

  return {
    url,
    port,
    stats,
    paths: sitePaths(site),
    article: (i) => site.article(i),
    renderedArticle: (i) => site.renderedArticle(i),
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
