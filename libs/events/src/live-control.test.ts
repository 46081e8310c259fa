import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlBatch, controlRequest, controlSite, sameSite } from './live-control.js';

test('a site covers itself and its subdomains, never a look-alike or another scheme', () => {
  assert.ok(sameSite('https://example.com/a', 'example.com'));
  assert.ok(sameSite('http://shop.EXAMPLE.com./cart', 'example.com'));
  assert.ok(!sameSite('https://example.com.evil.net/', 'example.com'));
  assert.ok(!sameSite('https://notexample.com/', 'example.com'));
  assert.ok(!sameSite('https://example.com@evil.net/', 'example.com'), 'the host, not the user part');
  assert.ok(!sameSite('ftp://example.com/', 'example.com'));
  assert.ok(!sameSite('javascript:alert(1)//example.com', 'example.com'));
  assert.ok(sameSite('http://127.0.0.1:8080/', '127.0.0.1'));
  assert.ok(!sameSite('http://localhost/', '127.0.0.1'));
  assert.ok(!sameSite('not a url', 'example.com'));
});

test('a batch is strict: unknown fields, other schemes, control characters and oversized parts are refused', () => {
  const ok = { tab: 1, actions: [{ type: 'mouseDown', x: 10, y: 20, button: 'left', clickCount: 1 }] };
  assert.ok(controlBatch.safeParse(ok).success);
  assert.ok(controlBatch.safeParse({ tab: 2, actions: [] }).success, 'a tab choice alone');
  const refused = [
    { ...ok, extra: 1 },
    { tab: 1, actions: [{ type: 'mouseDown', x: 10, y: 20, button: 'left', clickCount: 1, evil: true }] },
    { tab: 1, actions: [{ type: 'navigate', url: 'javascript:alert(1)' }] },
    { tab: 1, actions: [{ type: 'navigate', url: 'file:///etc/passwd' }] },
    { tab: 1, actions: [{ type: 'keyDown', key: 'a', code: 'KeyA', text: '\u0003' }] },
    { tab: 1, actions: [{ type: 'insertText', text: 'x'.repeat(4_097) }] },
    { tab: 1, actions: [{ type: 'mouseMove', x: Number.NaN, y: 0 }] },
    { tab: 1, actions: [{ type: 'mouseMove', x: 1e9, y: 0 }] },
    { tab: 1, actions: [{ type: 'evaluate', expression: '1' }] },
    { tab: 0, actions: [] },
    { tab: 1, actions: Array.from({ length: 65 }, () => ({ type: 'back' })) },
  ];
  for (const batch of refused) assert.ok(!controlBatch.safeParse(batch).success, JSON.stringify(batch).slice(0, 120));
});

test('the bus request names a site; release stands alone', () => {
  assert.ok(controlRequest.safeParse({ site: 'example.com', tab: 1, actions: [] }).success);
  assert.ok(controlRequest.safeParse({ release: true }).success);
  assert.ok(!controlRequest.safeParse({ tab: 1, actions: [] }).success, 'no site');
  assert.ok(!controlRequest.safeParse({ release: true, site: 'example.com' }).success);
  for (const site of ['Example.com', 'com', 'exa mple.com', '-a.com', 'a.com/', '*.a.com'])
    assert.ok(!controlSite.safeParse(site).success, site);
});
