import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { chooseEngine, looksScriptRendered } from './engine.js';

const opts = (init: Omit<Partial<crawl.ScrapeOptions>, '$typeName'>) => create(crawl.ScrapeOptionsSchema, init);

test('options that need a browser force it; forced engines win', () => {
  assert.equal(chooseEngine(opts({}), true), 'fetch-then-decide');
  assert.equal(chooseEngine(opts({}), false), 'fetch');
  assert.equal(chooseEngine(opts({ formats: [crawl.Format.SCREENSHOT] }), true), 'browser');
  assert.equal(chooseEngine(opts({ waitForMs: 500 }), true), 'browser');
  assert.equal(chooseEngine(opts({ engine: crawl.Engine.FETCH, waitForMs: 500 }), true), 'fetch');
  assert.equal(chooseEngine(opts({ engine: crawl.Engine.BROWSER }), true), 'browser');
});

test('an empty app shell looks script-rendered; an article does not', () => {
  assert.ok(looksScriptRendered('<div id="root"></div><script src=a.js></script>', ''));
  assert.ok(looksScriptRendered('<noscript>You need to enable JavaScript to run this app.</noscript>', ''));
  assert.ok(!looksScriptRendered('<article><p>words</p></article>', 'x'.repeat(600)));
  assert.ok(!looksScriptRendered('<p>A short page with no scripts.</p>', 'A short page with no scripts.'));
  assert.ok(
    looksScriptRendered('<main id="app"><p class="loading">Loading&hellip;</p></main><script>x()</script>', 'Loading…'),
  );
  assert.ok(
    !looksScriptRendered(`<article>${'word '.repeat(200)}</article><script>analytics()</script>`, 'word '.repeat(200)),
  );
});
