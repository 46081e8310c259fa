// A fresh process pays for compiling the extraction code on its first pages:
// the first page took about 100 ms where a warm one takes about 1.5. A service
// that extracts calls `warmUp` once at start, before it serves, so no user's
// page pays for it.
import { extract } from './extract.js';

const paragraph = (i: number) =>
  `<p>Paragraph ${i} of the sample article, with <a href="/related/${i}">a related page</a>, some <em>emphasis</em>
   and enough words to be scored as main text by the extractor, as a real article's paragraph would be.</p>`;

/** A page with the parts real pages have: navigation, an article with lists, a table and code, a footer. */
export const SAMPLE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sample article</title>
<meta name="description" content="A page to warm the extractor."><link rel="canonical" href="https://example.com/a">
<meta property="og:title" content="Sample article"></head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About</a></nav></header>
<main><article><h1>Sample article</h1>${Array.from({ length: 8 }, (_, i) => paragraph(i)).join('')}
<ul><li>One</li><li>Two</li></ul><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<pre><code>const x = 1;</code></pre></article></main>
<aside><h2>Popular</h2><ul><li><a href="/p/1">One</a></li><li><a href="/p/2">Two</a></li></ul></aside>
<footer><p>© Sample</p></footer></body></html>`;

/** Extracts the sample page `rounds` times with every format; returns the milliseconds it took. */
export function warmUp(rounds = 20): number {
  const started = performance.now();
  for (let i = 0; i < rounds; i++) extract(SAMPLE_PAGE, 'https://example.com/a');
  return performance.now() - started;
}
