import { type Article, article, articleBody, escapeHtml, layout } from './content.js';

/** What the HTML generators need to know about the running site. */
export interface SiteModel {
  readonly origin: string;
  readonly seed: number;
  readonly pages: number;
  readonly rendered: number;
  readonly extras: boolean;
  article(index: number): Article;
  renderedArticle(index: number): Article;
}

export const STATIC_PAGES = ['/about', '/contact', '/privacy', '/terms'] as const;

/** Test-only pages the home page links to when `extras` is on. */
export const EXTRA_LINKS = [
  '/variants',
  '/loop/0',
  '/trap/0',
  '/private/secret',
  '/redirect/chain/3',
  '/redirect/loop/a',
  '/redirect/private',
  '/status/404',
  '/status/500',
  '/missing-page',
  '/files/report.pdf',
  '/files/image.png',
  '/slow',
] as const;

export function homePage(site: SiteModel): string {
  const first = Array.from({ length: Math.min(site.pages, 10) }, (_, i) => site.article(i));
  const rendered = Array.from({ length: site.extras ? site.rendered : 0 }, (_, i) => `/rendered/${i}`);
  const extra = site.extras ? [...rendered, ...EXTRA_LINKS] : [];
  const body = `<main>
<h1>County Archive</h1>
<p>Stories from the county's records: harbours, mills, railways and the people who worked them.</p>
<h2>Latest stories</h2>
<ul>${first.map((a) => `<li><a href="${a.path}">${escapeHtml(a.title)}</a></li>`).join('')}</ul>
${extra.length > 0 ? `<h2>Test pages</h2><ul>${extra.map((p) => `<li><a href="${p}">${p}</a></li>`).join('')}</ul>` : ''}
</main>`;
  return layout({ origin: site.origin, title: 'County Archive', path: '/', body });
}

export function articlePage(site: SiteModel, a: Article): string {
  const body = articleBody(a, (i) => site.article(i).title);
  return layout({ origin: site.origin, title: a.title, path: a.path, description: a.description, body });
}

export function staticPage(site: SiteModel, path: string): string {
  const name = path.slice(1);
  const body = `<main><h1>${name.charAt(0).toUpperCase()}${name.slice(1)}</h1>
<p>The County Archive Trust keeps this page short. Write to the archivist for anything else.</p></main>`;
  return layout({ origin: site.origin, title: `${name} - County Archive`, path, body });
}

/**
 * The article arrives only after the load event, from inline data, as on a
 * client-rendered site: a plain fetch sees the loading placeholder only.
 */
export function renderedPage(site: SiteModel, index: number): string {
  const a = site.renderedArticle(index);
  const data = JSON.stringify({ title: a.title, author: a.author, date: a.date, sections: a.sections }).replace(
    /</g,
    '\\u003c',
  );
  const script = `<script>
window.addEventListener('load', function () {
  setTimeout(function () {
    var d = ${data};
    var html = '<article><h1>' + esc(d.title) + '</h1><p class="byline">By ' + esc(d.author) + ', ' + d.date + '</p>';
    d.sections.forEach(function (s) {
      html += '<h2>' + esc(s.heading) + '</h2>';
      s.paragraphs.forEach(function (p) { html += '<p>' + esc(p) + '</p>'; });
    });
    document.getElementById('app').innerHTML = html + '</article>';
    document.title = d.title;
    document.body.setAttribute('data-rendered', 'true');
  }, 100);
  function esc(s) { return String(s).replace(/[&<>]/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); }
});
</script>`;
  const body = `<main id="app"><p class="loading">Loading&hellip;</p></main>\n${script}`;
  return layout({ origin: site.origin, title: 'Loading - County Archive', path: `/rendered/${index}`, body });
}

/** One article reached by every spelling a crawler must fold into one URL. */
export function variantsPage(site: SiteModel): string {
  const origin = new URL(site.origin);
  const upper = `HTTP://${origin.host.toUpperCase()}`;
  const links = [
    '/articles/3',
    '/articles/3/',
    '/articles/3#comments',
    '/articles/3?utm_source=newsletter&utm_medium=email',
    '/articles/3?b=2&a=1',
    '/articles/3?a=1&b=2',
    '/articles/./3',
    '/articles/x/../3',
    '/articles/%33',
    `${site.origin}/articles/3`,
    `${upper}/articles/3`,
    `//${origin.host}/articles/3`,
    `${origin.protocol}//${origin.hostname}:${origin.port}/articles/3`,
  ];
  const body = `<main><h1>URL variants</h1><ul>${links
    .map((l) => `<li><a href="${escapeHtml(l)}">${escapeHtml(l)}</a></li>`)
    .join('')}</ul></main>`;
  return layout({ origin: site.origin, title: 'URL variants', path: '/variants', body });
}

/** Three pages in a cycle, each also linking to itself. */
export function loopPage(site: SiteModel, n: number): string {
  const next = (n + 1) % 3;
  const body = `<main><h1>Loop ${n}</h1><p>Round and round the archive.</p>
<ul><li><a href="/loop/${next}">Loop ${next}</a></li><li><a href="/loop/${n}">Loop ${n} again</a></li></ul></main>`;
  return layout({ origin: site.origin, title: `Loop ${n}`, path: `/loop/${n}`, body });
}

/** A crawler trap: every page links one deeper, forever (like a calendar's next month). */
export function trapPage(site: SiteModel, n: number): string {
  const body = `<main><h1>Calendar page ${n}</h1><p>Nothing happened on this day.</p>
<a href="/trap/${n + 1}">Next</a> <a href="/trap/${n + 1}?view=list">Next (list)</a></main>`;
  return layout({ origin: site.origin, title: `Calendar ${n}`, path: `/trap/${n}`, body });
}

export function errorPage(site: SiteModel, status: number, path: string): string {
  const body = `<main><h1>Error ${status}</h1><p>Sorry, ${escapeHtml(path)} could not be served.</p></main>`;
  return layout({ origin: site.origin, title: `Error ${status}`, path, body });
}

export function newSiteModel(opts: Omit<SiteModel, 'article' | 'renderedArticle'>): SiteModel {
  const cache = new Map<number, Article>();
  const renderedCache = new Map<number, Article>();
  const memo = (cache: Map<number, Article>, seed: number) => (index: number) => {
    const hit = cache.get(index);
    if (hit) return hit;
    const made = article(seed, index, opts.pages);
    cache.set(index, made);
    return made;
  };
  return {
    ...opts,
    article: memo(cache, opts.seed),
    // A different seed stream, so rendered pages never duplicate static ones.
    renderedArticle: memo(renderedCache, opts.seed + 7919),
  };
}
