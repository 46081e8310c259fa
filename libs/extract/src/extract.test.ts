import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extract } from './index.js';

const URL = 'https://example.org/blog/post.html';
const PROSE =
  'Extraction keeps the paragraphs a reader came for and leaves the menus, share bars and footers behind, ' +
  'which is what makes the text worth feeding to a model or an index.';

/** A small article page with every kind of chrome around it. */
function articlePage(body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><title>Post title</title>${head}</head><body>
    <header><nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li></ul></nav></header>
    <div class="share-buttons"><a href="https://twitter.com/x">Twitter</a><a href="https://facebook.com/x">Facebook</a></div>
    <article><h1>Post title</h1><p>${PROSE}</p>${body}<p>${PROSE} Closing words.</p></article>
    <div id="comments"><p>Great post, thanks for sharing this with everyone!</p></div>
    <footer><p>Copyright 2024 Example Org. All rights reserved.</p></footer>
  </body></html>`;
}

describe('extract: main content', () => {
  it('keeps the article and drops navigation, share bars, comments and footer', () => {
    const { text, markdown } = extract(articlePage(''), URL);
    assert.match(text, /Extraction keeps the paragraphs/);
    assert.match(text, /Closing words\./);
    for (const chrome of ['About', 'Twitter', 'Great post', 'All rights reserved']) {
      assert.ok(!text.includes(chrome), `text leaks "${chrome}"`);
      assert.ok(!markdown.includes(chrome), `markdown leaks "${chrome}"`);
    }
  });

  it('renders tables as GFM tables', () => {
    const table = '<table><tr><th>Name</th><th>Score</th></tr><tr><td>Ada</td><td>10</td></tr></table>';
    const { markdown, text } = extract(articlePage(table), URL);
    assert.match(markdown, /\| Name +\| Score +\|\n\| -+ \| -+ \|\n\| Ada +\| 10 +\|/);
    assert.match(text, /Name \| Score\nAda \| 10/);
  });

  it('reads markup the way a browser parses it: rows without <tbody>, stray cells, entities, CRLF', () => {
    const table =
      '<table>\n  <tr><th>Plan</th><th>Credits</th></tr>\n  <tr><td>free</td><td>1000</td></tr>\n</table>' +
      '<p>Seminar: 22. &amp; 23. August</p><td>a stray cell</td>' +
      '<pre><code class="language-sh">one\r\ntwo\r\n</code></pre>';
    const { markdown, html, warnings } = extract(articlePage(table), URL);
    assert.deepEqual(warnings, []);
    assert.match(markdown, /\| Plan +\| Credits +\|\n\| -+ \| -+ \|\n\| free +\| 1000 +\|/);
    assert.match(markdown, /Seminar: 22\. & 23\. August/);
    assert.match(markdown, /a stray cell/);
    assert.match(markdown, /```sh\none\ntwo\n```/);
    assert.match(html, /<table>\s*<tbody>/);
  });

  it('keeps nested lists, in Markdown and in text', () => {
    const list =
      '<ul><li>fruit<ul><li>apple</li><li>pear</li></ul></li><li>bread</li></ul><ol start="3"><li>third</li></ol>';
    const { markdown, text } = extract(articlePage(list), URL);
    assert.match(markdown, /- fruit\n {2}- apple\n {2}- pear\n- bread/);
    assert.match(markdown, /3\. third/);
    assert.match(text, /fruit\napple\npear\nbread/);
  });

  it('keeps code blocks with their language, from the block or its highlighter wrapper', () => {
    const code =
      '<pre><code class="language-python">def f(x):\n    return x</code></pre>' +
      '<div class="highlight highlight-source-rust"><pre><span>fn</span> main() {}</pre></div>' +
      '<pre data-lang="sh">ls -la</pre>';
    const { markdown, html } = extract(articlePage(code), URL);
    assert.match(markdown, /```python\ndef f\(x\):\n {4}return x\n```/);
    assert.match(markdown, /```rust\nfn main\(\) \{\}\n```/);
    assert.match(markdown, /```sh\nls -la\n```/);
    assert.match(html, /<code class="language-python">/);
  });

  it('makes links and images absolute against the final URL, or <base> when present', () => {
    const body = '<p>See <a href="../docs/intro.html#top">the intro</a> and <img src="/img/a.png" alt="A diagram"></p>';
    const plain = extract(articlePage(body), URL);
    assert.match(plain.markdown, /\[the intro\]\(https:\/\/example\.org\/docs\/intro\.html#top\)/);
    assert.match(plain.markdown, /!\[A diagram\]\(https:\/\/example\.org\/img\/a\.png\)/);
    const based = extract(articlePage(body, '<base href="https://cdn.example.net/site/">'), URL);
    assert.match(based.markdown, /\(https:\/\/cdn\.example\.net\/docs\/intro\.html#top\)/);
  });

  it('lists every page link once, absolute, fragments dropped', () => {
    const { links } = extract(
      '<html><body><a href="/a">A</a><a href="/a#x">A again</a><a href="https://other.org/">O</a><a href="javascript:void(0)">J</a></body></html>',
      URL,
    );
    assert.deepEqual(links, ['https://example.org/a', 'https://other.org/']);
  });
});

describe('extract: metadata', () => {
  it('reads title, description, language, canonical, Open Graph and article fields', () => {
    const head = `
      <meta name="description" content="A short summary.">
      <meta name="keywords" content="extraction, markdown">
      <meta name="author" content="Ada Lovelace">
      <meta property="og:title" content="OG title">
      <meta property="og:image" content="/cover.png">
      <meta property="og:site_name" content="Example">
      <meta property="article:published_time" content="2024-05-01T10:00:00Z">
      <meta property="article:tag" content="one"><meta property="article:tag" content="two">
      <meta name="twitter:card" content="summary">
      <link rel="canonical" href="/blog/post">
      <link rel="icon" href="/favicon.png">`;
    const { metadata } = extract(articlePage('', head), URL);
    assert.equal(metadata.title, 'Post title');
    assert.equal(metadata.description, 'A short summary.');
    assert.equal(metadata.language, 'en');
    assert.equal(metadata.canonical, 'https://example.org/blog/post');
    assert.equal(metadata.keywords, 'extraction, markdown');
    assert.equal(metadata.author, 'Ada Lovelace');
    assert.equal(metadata.ogTitle, 'OG title');
    assert.equal(metadata.ogImage, 'https://example.org/cover.png');
    assert.equal(metadata.ogSiteName, 'Example');
    assert.equal(metadata.publishedTime, '2024-05-01T10:00:00Z');
    assert.deepEqual(metadata.articleTag, ['one', 'two']);
    assert.equal(metadata.favicon, 'https://example.org/favicon.png');
    assert.equal(metadata['twitter:card'], 'summary');
  });

  it('falls back on JSON-LD for author and dates', () => {
    const ld =
      '<script type="application/ld+json">{"@type":"NewsArticle","author":{"name":"Grace Hopper"},"datePublished":"2023-01-02"}</script>';
    const { metadata } = extract(articlePage('', ld), URL);
    assert.equal(metadata.author, 'Grace Hopper');
    assert.equal(metadata.publishedTime, '2023-01-02');
  });
});

describe('extract: options', () => {
  it('onlyMainContent false keeps the whole body but not scripts and styles', () => {
    const page = articlePage('<script>var secret = 1;</script><style>.x{}</style>');
    const { text } = extract(page, URL, { onlyMainContent: false });
    assert.match(text, /About/);
    assert.match(text, /All rights reserved/);
    assert.match(text, /Extraction keeps the paragraphs/);
    assert.ok(!text.includes('secret'));
  });

  it('includeTags keeps only the matching elements', () => {
    const { text } = extract(articlePage('<div class="box"><p>Only this box.</p></div>'), URL, {
      includeTags: ['.box', 'footer'],
    });
    assert.equal(text, 'Only this box.\n\nCopyright 2024 Example Org. All rights reserved.');
  });

  it('says which includeTags selector matched nothing, instead of emptying the page silently', () => {
    const page = articlePage('<div class="box"><p>Only this box.</p></div>');
    const some = extract(page, URL, { includeTags: ['.box', '.missing'] });
    assert.equal(some.text, 'Only this box.');
    assert.deepEqual(some.warnings, ['includeTags selector matched nothing: .missing']);
    const none = extract(page, URL, { includeTags: ['#nowhere'] });
    assert.equal(none.text, '');
    assert.deepEqual(none.warnings, ['includeTags selector matched nothing: #nowhere']);
  });

  it('excludeTags removes matching elements before extraction', () => {
    const { text } = extract(articlePage('<p class="promo">Buy our course today.</p>'), URL, {
      excludeTags: ['.promo'],
    });
    assert.ok(!text.includes('Buy our course'));
    assert.match(text, /Closing words/);
  });

  it('ignores invalid selectors with a warning instead of failing', () => {
    const { text, warnings } = extract(articlePage(''), URL, { excludeTags: ['[[['] });
    assert.match(text, /Closing words/);
    assert.deepEqual(warnings, ['invalid selector ignored: [[[']);
  });

  it('computes only the requested formats', () => {
    const result = extract(articlePage(''), URL, { formats: ['text'] });
    assert.match(result.text, /Closing words/);
    assert.equal(result.markdown, '');
    assert.deepEqual(result.links, []);
  });
});
