import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extract } from './index.js';

/*
 * Short and non-article pages: the main-content cascade finds little on them and falls back,
 * and every path must still keep block structure (words apart in `text`, headings and lists in
 * `markdown`) and, with onlyMainContent, leave the page's chrome out but its listing in.
 */
const URL = 'https://example.org/';

const SHORT = `<!doctype html><html><head><title>Marsh birds</title></head><body>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li></ul></nav></header>
<main><h1>Birds of the marsh</h1><p>A few notes on the birds we saw.</p>
<ul><li><a href="/heron">Grey heron</a></li><li><a href="/egret">Little egret</a></li></ul></main>
<footer><p>Copyright 2024 Marsh Club</p></footer></body></html>`;

const MINIFIED =
  '<html><body><nav><a href="/">Home</a><a href="/about">About</a></nav>' +
  '<main><h1>Herons</h1><p>The quiet heron waits by the water.</p></main></body></html>';

const LISTING = `<!doctype html><html><body>
<header><a class="logo" href="/">Field Notes</a>
<nav><a href="/">Home</a> <a href="/archive">Archive</a> <a href="/about">About</a></nav></header>
<main><h1>Archive</h1><p>Every field note we have published, newest first.</p>
<ul class="posts">
<li><a href="/notes/heron">The quiet heron</a>: how a grey heron hunts in the reeds at dawn.</li>
<li><a href="/notes/egret">Egrets return</a>: little egrets are back on the estuary this spring.</li>
<li><a href="/notes/bittern">Booming bitterns</a>: listening for the call across the marsh.</li>
</ul></main>
<footer>© 2024 Field Notes · <a href="/privacy">Privacy</a></footer>
<div id="cookie-banner">We use cookies to count visits. <button>Accept</button></div>
</body></html>`;

const LANDING = `<!doctype html><html><body>
<header class="site-header"><nav><a href="/">Acme</a><a href="/pricing">Pricing</a><a href="/login">Log in</a></nav></header>
<section class="hero"><h1>Ship faster with Acme</h1><p class="tagline">The build server that never sleeps.</p>
<a class="button" href="/signup">Start free trial</a></section>
<section class="features">
<div class="feature"><h2>Fast builds</h2><p>Cached layers cut build times in half.</p></div>
<div class="feature"><h2>Clear logs</h2><p>Every step is logged and searchable.</p></div>
</section>
<section class="cta"><h2>Ready to try it?</h2><a href="/signup">Sign up now</a></section>
<footer><nav><a href="/terms">Terms</a><a href="/privacy">Privacy</a></nav></footer>
</body></html>`;

const PRODUCT = `<!doctype html><html><body>
<header><nav><a href="/">Shop</a><a href="/cart">Cart</a></nav></header>
<div class="breadcrumb"><a href="/">Home</a> › <a href="/kettles">Kettles</a></div>
<main><div class="product"><h1>Copper kettle</h1><p class="price">€49.00</p>
<table class="specs"><tr><th>Capacity</th><td>1.7 l</td></tr><tr><th>Weight</th><td>1.2 kg</td></tr></table>
<h2>Description</h2><p>A hand-made kettle that whistles when the water boils.</p>
<button>Add to cart</button></div></main>
<footer><p>Free delivery over €50</p></footer></body></html>`;

describe('extract: short and non-article pages keep their structure', () => {
  it('a very short page: headings, paragraph and list, without navigation or footer', () => {
    const { text, markdown, html } = extract(SHORT, URL);
    assert.equal(text, 'Birds of the marsh\n\nA few notes on the birds we saw.\n\nGrey heron\nLittle egret');
    assert.equal(
      markdown,
      '# Birds of the marsh\n\nA few notes on the birds we saw.\n\n' +
        '- [Grey heron](https://example.org/heron)\n- [Little egret](https://example.org/egret)',
    );
    assert.equal(
      html,
      '<h1>Birds of the marsh</h1><p>A few notes on the birds we saw.</p>' +
        '<ul><li><a href="https://example.org/heron">Grey heron</a></li>' +
        '<li><a href="https://example.org/egret">Little egret</a></li></ul>',
    );
  });

  it('minified markup: words apart, navigation dropped', () => {
    const { text, markdown, html } = extract(MINIFIED, URL);
    assert.equal(text, 'Herons\n\nThe quiet heron waits by the water.');
    assert.equal(markdown, '# Herons\n\nThe quiet heron waits by the water.');
    assert.equal(html, '<h1>Herons</h1><p>The quiet heron waits by the water.</p>');
  });

  it('a listing: the intro and every item with its blurb, without header, footer and cookie banner', () => {
    const { text, markdown } = extract(LISTING, URL);
    assert.equal(
      text,
      'Archive\n\nEvery field note we have published, newest first.\n\n' +
        'The quiet heron: how a grey heron hunts in the reeds at dawn.\n' +
        'Egrets return: little egrets are back on the estuary this spring.\n' +
        'Booming bitterns: listening for the call across the marsh.',
    );
    assert.equal(
      markdown,
      '# Archive\n\nEvery field note we have published, newest first.\n\n' +
        '- [The quiet heron](https://example.org/notes/heron): how a grey heron hunts in the reeds at dawn.\n' +
        '- [Egrets return](https://example.org/notes/egret): little egrets are back on the estuary this spring.\n' +
        '- [Booming bitterns](https://example.org/notes/bittern): listening for the call across the marsh.',
    );
  });

  it('a landing page: hero, tagline, feature sections and call to action, without the menus', () => {
    const { text, markdown } = extract(LANDING, URL);
    assert.equal(
      text,
      'Ship faster with Acme\n\nThe build server that never sleeps.\n\nStart free trial\n\n' +
        'Fast builds\n\nCached layers cut build times in half.\n\n' +
        'Clear logs\n\nEvery step is logged and searchable.\n\nReady to try it?\n\nSign up now',
    );
    assert.equal(
      markdown,
      '# Ship faster with Acme\n\nThe build server that never sleeps.\n\n' +
        '[Start free trial](https://example.org/signup)\n\n' +
        '## Fast builds\n\nCached layers cut build times in half.\n\n' +
        '## Clear logs\n\nEvery step is logged and searchable.\n\n' +
        '## Ready to try it?\n\n[Sign up now](https://example.org/signup)',
    );
  });

  it('a product page: name, price, specification table and description, without shop menus', () => {
    const { text, markdown } = extract(PRODUCT, URL);
    assert.equal(
      text,
      'Copper kettle\n\n€49.00\n\nCapacity | 1.7 l\nWeight | 1.2 kg\n\n' +
        'Description\n\nA hand-made kettle that whistles when the water boils.',
    );
    assert.match(markdown, /^# Copper kettle\n\n€49\.00\n\n/);
    assert.match(markdown, /\| Capacity \| 1\.7 l \|\n\| Weight \| 1\.2 kg \|/);
    assert.match(markdown, /\n\n## Description\n\nA hand-made kettle that whistles when the water boils\.$/);
  });
});

describe('extract: recovered paragraphs', () => {
  it('takes a listing item once and inline code as a block of its own', () => {
    const page =
      '<html><body><nav><a href="/">Home</a><a href="/docs">Docs</a></nav><main><h1>Latest news</h1><ul>' +
      '<li><a href="/n/1">Flood barrier finished</a><p>The new barrier protects 300 homes.</p></li>' +
      '<li><a href="/n/2">Ferry returns</a><p>The summer ferry starts on Monday.</p></li></ul>' +
      '<dl><dt><code>parse(text)</code></dt><dd>Reads a document.</dd></dl></main></body></html>';
    assert.equal(
      extract(page, URL).text,
      'Latest news\n\nFlood barrier finished\n\nThe new barrier protects 300 homes.\n\n' +
        'Ferry returns\n\nThe summer ferry starts on Monday.\n\nparse(text)\nReads a document.',
    );
  });
});

describe('extract: structure on the whole-page and selected paths', () => {
  it('onlyMainContent false: adjacent links stay apart, blocks apart', () => {
    const { text, markdown } = extract(MINIFIED, URL, { onlyMainContent: false });
    assert.equal(text, 'Home About\n\nHerons\n\nThe quiet heron waits by the water.');
    assert.equal(
      markdown,
      '[Home](https://example.org/) [About](https://example.org/about)\n\n# Herons\n\nThe quiet heron waits by the water.',
    );
  });

  it('onlyMainContent false keeps the chrome, one block per line', () => {
    const { text } = extract(SHORT, URL, { onlyMainContent: false });
    assert.equal(
      text,
      'Home\nAbout\n\nBirds of the marsh\n\nA few notes on the birds we saw.\n\n' +
        'Grey heron\nLittle egret\n\nCopyright 2024 Marsh Club',
    );
  });

  it('includeTags: the selected elements, structured', () => {
    const { text, markdown } = extract(LANDING, URL, { includeTags: ['.feature'] });
    assert.equal(
      text,
      'Fast builds\n\nCached layers cut build times in half.\n\nClear logs\n\nEvery step is logged and searchable.',
    );
    assert.equal(
      markdown,
      '## Fast builds\n\nCached layers cut build times in half.\n\n## Clear logs\n\nEvery step is logged and searchable.',
    );
  });
});
