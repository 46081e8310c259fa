import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extract } from '../index.js';

const URL = 'https://news.example.org/2024/story.html';
const sentence = (n: number): string =>
  `Sentence ${n} of the story carries enough words to read as prose rather than as a label or a menu entry.`;
const paragraphs = (from: number, count: number): string =>
  Array.from({ length: count }, (_, i) => `<p>${sentence(from + i)}</p>`).join('');

describe('main content', () => {
  it('takes the lead paragraph set apart before the article body', () => {
    const page = `<html><body>
      <div class="article"><h1>Headline</h1>
        <div class="article__intro"><p>The lead says what happened, before the body goes into detail.</p></div>
        <div class="article-body">${paragraphs(1, 4)}</div>
      </div></body></html>`;
    const { text } = extract(page, URL);
    assert.match(text, /^The lead says what happened/);
    assert.match(text, /Sentence 4 of the story/);
  });

  it('drops link farms, hidden blocks, date lines and photo credits inside the body', () => {
    const related = Array.from({ length: 6 }, (_, i) => `<li><a href="/r${i}">Related story ${i}</a></li>`).join('');
    const page = `<html><body><article>
      <span class="date">12.03.2024</span>
      ${paragraphs(1, 3)}
      <p class="image-copyright">Photo: Agency / Someone</p>
      <div style="display:none"><p>Hidden promotional paragraph that nobody sees on the page.</p></div>
      <ul>${related}</ul>
      ${paragraphs(4, 2)}
    </article></body></html>`;
    const { text } = extract(page, URL);
    assert.match(text, /Sentence 5 of the story/);
    for (const boilerplate of ['12.03.2024', 'Photo: Agency', 'Hidden promotional', 'Related story']) {
      assert.ok(!text.includes(boilerplate), `leaks "${boilerplate}"`);
    }
  });

  it('drops paragraphs that are only a share label, however padded, and keeps prose that names a network', () => {
    const page = `<html><body><article>
      ${paragraphs(1, 3)}
      <p>Facebook</p>
      <p> \u00bb  \u00bb  More   on this story </p>
      <p>Mehr zum Thema:</p>
      <h3>--- E-Mail</h3>
      <p>Print this page</p>
      <p>Facebook said on Tuesday that the service would carry on as before for everyone.</p>
      ${paragraphs(4, 2)}
    </article></body></html>`;
    const { text } = extract(page, URL);
    assert.match(text, /Sentence 5 of the story/);
    for (const label of ['Facebook\n', 'More on this', 'Mehr zum Thema', 'E-Mail']) {
      assert.ok(!`${text}\n`.includes(label), `keeps the label "${label.trim()}"`);
    }
    assert.match(text, /Print this page/, 'more than a label');
    assert.match(text, /Facebook said on Tuesday/);
  });

  it('reads loose text in divs when a page has almost no paragraphs', () => {
    const page = `<html><body><div id="content">
      <div>${sentence(1)}<br>${sentence(2)}</div><div>${sentence(3)}</div>
    </div></body></html>`;
    const { text } = extract(page, URL);
    for (const n of [1, 2, 3]) assert.match(text, new RegExp(`Sentence ${n} of`));
  });

  it('falls back on the paragraphs of the page when no container is recognised', () => {
    const page = `<html><body><table><tr><td><a href="/">Home</a></td></tr></table>
      <center><font>${paragraphs(1, 4)}</font></center></body></html>`;
    const { text } = extract(page, URL);
    assert.match(text, /Sentence 1 of the story[\s\S]*Sentence 4 of the story/);
  });

  it('uses the schema.org article body when the markup hides the text', () => {
    const body = Array.from({ length: 5 }, (_, i) => sentence(i + 1)).join(' ');
    const page = `<html><head><script type="application/ld+json">${JSON.stringify({
      '@type': 'NewsArticle',
      articleBody: body,
    })}</script></head><body><div id="app"><p>Loading…</p></div></body></html>`;
    const { text } = extract(page, URL);
    assert.match(text, /Sentence 5 of the story/);
  });

  it('keeps figure images for Markdown but not their captions', () => {
    const page = `<html><body><article>${paragraphs(1, 3)}
      <figure><img src="/photo.jpg" alt="The harbour"><figcaption>Photo credit line</figcaption></figure>
      ${paragraphs(4, 1)}</article></body></html>`;
    const { markdown, text } = extract(page, URL);
    assert.match(markdown, /!\[The harbour\]\(https:\/\/news\.example\.org\/photo\.jpg\)/);
    assert.ok(!text.includes('Photo credit line'));
  });

  it('strips soft hyphens and zero-width spaces from text', () => {
    const page = `<html><body><article><p>Mit\u00adtel\u00adal\u00adter und Zero\u200bWidth. ${sentence(1)}</p>${paragraphs(2, 3)}</article></body></html>`;
    assert.match(extract(page, URL).text, /Mittelalter und ZeroWidth\./);
  });
});
