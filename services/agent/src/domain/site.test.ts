import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siteOf } from './site.js';

test('a page’s site is its registrable domain, or its address; nothing off the web', () => {
  assert.equal(siteOf('https://shop.Example.co.uk/cart'), 'example.co.uk');
  assert.equal(siteOf('https://alice.github.io/x'), 'alice.github.io', 'a public suffix is never the site');
  assert.equal(siteOf('http://127.0.0.1:8080/a'), '127.0.0.1');
  assert.equal(siteOf('about:blank'), null);
  assert.equal(siteOf('not a url'), null);
});
