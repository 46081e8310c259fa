import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '@wap/errors';
import { ReplayLinks } from './links.js';

const KEY = 'a-replay-key-of-at-least-thirty-two-characters';
const SESSION = '6f1c1f5e-2c55-4d0e-9a34-2f4f0c1b8e11';
const links = new ReplayLinks(KEY, 'https://api.example.com/', 3_600_000);
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

const denied = (fn: () => unknown) =>
  assert.throws(fn, (err) => isApiError(err) && err.code === 'replay_access_denied' && err.status === 403);

test('a link opens its own session of its own workspace until it expires', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const url = links.url('ws_1', SESSION, '', now);
  assert.ok(url.startsWith(`https://api.example.com/replay/${SESSION}?`), url);
  assert.deepEqual(links.check(SESSION, queryOf(url), now + 3_599_000), {
    workspaceId: 'ws_1',
    sessionId: SESSION,
    expires: now / 1000 + 3_600,
  });
  denied(() => links.check(SESSION, queryOf(url), now + 3_601_000));
});

test('a link changed in its workspace, expiry, signature or session, or signed with another key, is refused', () => {
  const now = Date.now();
  const good = queryOf(links.url('ws_1', SESSION, '', now));
  denied(() => links.check(SESSION, { ...good, w: 'ws_2' }, now));
  denied(() => links.check(SESSION, { ...good, exp: String(Number(good.exp) + 60) }, now));
  denied(() => links.check(SESSION, { ...good, sig: `${good.sig}A` }, now));
  denied(() => links.check('7f1c1f5e-2c55-4d0e-9a34-2f4f0c1b8e11', good, now));
  denied(() => links.check(SESSION, { w: 'ws_1', exp: good.exp }, now));
  const other = new ReplayLinks(`${KEY}-rotated`, 'https://api.example.com', 3_600_000);
  denied(() => other.check(SESSION, good, now));
});

test('a control link binds its site and opens control only; a replay link never opens control', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const minted = links.controlLink(
    { workspaceId: 'ws_1', sessionId: SESSION, site: 'example.com', ttlSeconds: 600 },
    now,
  );
  assert.ok(minted.url.startsWith(`https://api.example.com/replay/${SESSION}/control?`), minted.url);
  assert.equal(minted.expiresAt.getTime(), now + 600_000);
  const query = queryOf(minted.url);
  assert.deepEqual(links.checkControl(SESSION, query, now), {
    workspaceId: 'ws_1',
    sessionId: SESSION,
    expires: now / 1000 + 600,
    site: 'example.com',
  });
  denied(() => links.checkControl(SESSION, { ...query, site: 'evil.example' }, now));
  denied(() => links.checkControl(SESSION, query, now + 601_000));
  denied(() => links.check(SESSION, query, now));
  const replay = queryOf(links.url('ws_1', SESSION, '', now));
  denied(() => links.checkControl(SESSION, { ...replay, site: 'example.com' }, now));
  assert.throws(() => links.controlLink({ workspaceId: 'ws_1', sessionId: SESSION, site: 'Example.com/path' }, now));
  const capped = links.controlLink(
    { workspaceId: 'ws_1', sessionId: SESSION, site: 'example.com', ttlSeconds: 1e9 },
    now,
  );
  assert.equal(capped.expiresAt.getTime(), now + 86_400_000, 'a day at most');
});
