/** One generated article: the same seed and index always give the same words. */
export interface Article {
  readonly index: number;
  readonly path: string;
  readonly title: string;
  readonly author: string;
  readonly date: string;
  readonly description: string;
  /** The main text, section by section: what an extractor should keep. */
  readonly sections: readonly { readonly heading: string; readonly paragraphs: readonly string[] }[];
  readonly listItems: readonly string[];
  /** Indexes of the articles this one links to: tree children, parent, and a few others. */
  readonly links: readonly number[];
}

const WORDS = `
  river harbour lantern garden orchard meadow valley quarry beacon ferry bridge tunnel
  market library museum theatre station cottage village borough county parish coast
  engineer baker weaver painter sailor farmer teacher mayor council archive survey
  ancient modern quiet busy narrow broad golden silver northern southern eastern western
  restored measured gathered recorded repaired planted carried painted opened crossed
  winter summer autumn spring morning evening season harvest festival ceremony journey
  timber stone copper iron glass wool grain salt coal clay limestone granite slate
  chapter record letter ledger map chart manuscript census report account notice
  local regional careful gradual steady early late patient curious remarkable modest
  canal railway tramway road lane footpath causeway pier dock mill forge kiln brewery
`
  .trim()
  .split(/\s+/);

const SURNAMES = ['Hale', 'Moreau', 'Okafor', 'Lindqvist', 'Tanaka', 'Brennan', 'Costa', 'Novak', 'Ahmed', 'Fischer'];
const GIVEN = ['Ada', 'Bruno', 'Chioma', 'Dmitri', 'Elena', 'Farah', 'Gus', 'Hiro', 'Ines', 'Jonas'];

/** mulberry32: tiny, fast and fully deterministic across Node versions. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)] as T;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function sentence(rnd: () => number, min = 8, max = 18): string {
  const n = min + Math.floor(rnd() * (max - min + 1));
  const words = Array.from({ length: n }, () => pick(rnd, WORDS));
  if (n > 10) words[Math.floor(n / 2)] += ',';
  return `${capitalise(words.join(' '))}.`;
}

function paragraph(rnd: () => number): string {
  const n = 3 + Math.floor(rnd() * 4);
  return Array.from({ length: n }, () => sentence(rnd)).join(' ');
}

function title(rnd: () => number): string {
  return `The ${capitalise(pick(rnd, WORDS))} ${capitalise(pick(rnd, WORDS))} of ${capitalise(pick(rnd, WORDS))}`;
}

export function article(seed: number, index: number, total: number): Article {
  const rnd = random(seed * 1_000_003 + index);
  const sections = Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => ({
    heading: capitalise(`${pick(rnd, WORDS)} and ${pick(rnd, WORDS)}`),
    paragraphs: Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => paragraph(rnd)),
  }));
  // A binary tree keeps every article within log2(total) links of the first,
  // so a crawl with a depth limit can still reach the whole site.
  const tree = [2 * index + 1, 2 * index + 2, index > 0 ? Math.floor((index - 1) / 2) : -1];
  const others = Array.from({ length: 3 }, () => Math.floor(rnd() * total));
  const links = [...new Set([...tree, ...others])].filter((i) => i >= 0 && i < total && i !== index);
  const day = 1 + Math.floor(rnd() * 28);
  return {
    index,
    path: `/articles/${index}`,
    title: `${title(rnd)} (${index})`,
    author: `${pick(rnd, GIVEN)} ${pick(rnd, SURNAMES)}`,
    date: `2024-${String(1 + (index % 12)).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    description: sentence(rnd, 12, 20),
    sections,
    listItems: Array.from({ length: 3 }, () => sentence(rnd, 4, 7)),
    links,
  };
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The plain main text of an article, as a perfect extractor would return it. */
export function mainText(a: Article): string {
  const parts = [a.title, `By ${a.author}, ${a.date}`];
  for (const s of a.sections) parts.push(s.heading, ...s.paragraphs);
  parts.push(...a.listItems);
  return parts.join('\n\n');
}

/** Site chrome shared by every page: the boilerplate an extractor must drop. */
export function layout(opts: {
  origin: string;
  title: string;
  path: string;
  description?: string;
  head?: string;
  body: string;
  lang?: string;
}): string {
  const canonical = `${opts.origin}${opts.path}`;
  const description = opts.description ?? 'Local history, maps and records from the test county archive.';
  return `<!doctype html>
<html lang="${opts.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<title>${escapeHtml(opts.title)}</title>
<meta name="description" content="${escapeHtml(description)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:title" content="${escapeHtml(opts.title)}">
<meta property="og:type" content="article">
<meta property="og:url" content="${canonical}">
<link rel="canonical" href="${canonical}">
${opts.head ?? ''}
</head>
<body>
<header class="site-header">
<a class="logo" href="/">County Archive</a>
<nav class="main-nav"><ul>
<li><a href="/">Home</a></li><li><a href="/articles/0">Articles</a></li>
<li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li>
</ul></nav>
<div class="cookie-banner">We use cookies to improve your experience. <button>Accept all</button></div>
</header>
${opts.body}
<footer class="site-footer">
<p>Subscribe to our newsletter for weekly stories from the archive.</p>
<ul><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms of use</a></li></ul>
<p>&copy; 2024 County Archive Trust. All rights reserved.</p>
</footer>
</body>
</html>
`;
}

export function articleBody(a: Article, linkTitles: (i: number) => string): string {
  const sections = a.sections
    .map((s) => `<h2>${escapeHtml(s.heading)}</h2>\n${s.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}`)
    .join('\n');
  const related = a.links.map((i) => `<li><a href="/articles/${i}">${escapeHtml(linkTitles(i))}</a></li>`).join('');
  return `<main>
<article>
<h1>${escapeHtml(a.title)}</h1>
<p class="byline">By ${escapeHtml(a.author)}, <time datetime="${a.date}">${a.date}</time></p>
${sections}
<ul>${a.listItems.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>
</article>
<aside class="related"><h3>Related stories</h3><ul>${related}</ul></aside>
</main>`;
}
