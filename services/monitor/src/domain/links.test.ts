import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SnapshotLinks } from './links.js';

test('a snapshot link opens its snapshot until it expires, and nothing else', () => {
  const links = new SnapshotLinks('k'.repeat(32), 'https://api.example.com/', 60);
  const now = Date.parse('2026-11-25T12:00:00Z');
  const url = new URL(links.url('snap-1', now));
  assert.equal(url.origin + url.pathname, 'https://api.example.com/snapshots/snap-1');
  const exp = Number(url.searchParams.get('exp'));
  const sig = url.searchParams.get('sig') ?? '';
  assert.equal(links.opens('snap-1', exp, sig, now), true);
  assert.equal(links.opens('snap-2', exp, sig, now), false, 'another snapshot');
  assert.equal(links.opens('snap-1', exp + 1, sig, now), false, 'a changed expiry');
  assert.equal(links.opens('snap-1', exp, sig, now + 61_000), false, 'expired');
  assert.equal(links.opens('snap-1', exp, `${sig.slice(0, -2)}AA`, now), false, 'a changed signature');
  const other = new SnapshotLinks('o'.repeat(32), 'https://api.example.com', 60);
  assert.equal(other.opens('snap-1', exp, sig, now), false, 'another key');
});
