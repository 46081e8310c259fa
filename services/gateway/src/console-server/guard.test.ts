import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfTokenOf, isOwnOrigin, writeAllowed } from './guard.js';

const PUBLIC = 'https://api.example.test';

test("the gateway's own origin is PUBLIC_URL's or the Host's; anything else is not", () => {
  assert.ok(isOwnOrigin('https://api.example.test', 'internal:8080', PUBLIC));
  assert.ok(isOwnOrigin('http://127.0.0.1:8080', '127.0.0.1:8080', PUBLIC));
  assert.ok(isOwnOrigin('https://console.local', 'console.local:443', PUBLIC), 'a default port written out');
  assert.ok(!isOwnOrigin('https://evil.test', 'api.example.test', PUBLIC));
  assert.ok(!isOwnOrigin('http://127.0.0.1:9090', '127.0.0.1:8080', PUBLIC), 'another port');
  assert.ok(!isOwnOrigin('https://api.example.test.evil.test', 'api.example.test', PUBLIC));
  assert.ok(!isOwnOrigin('null', '127.0.0.1:8080', PUBLIC), 'an opaque origin');
  assert.ok(!isOwnOrigin('http://127.0.0.1:8080/path', '127.0.0.1:8080', PUBLIC), 'not an origin');
  assert.ok(!isOwnOrigin('http://127.0.0.1:8080', undefined, PUBLIC));
});

test('a write needs the CSRF token of its own session and, when an Origin is sent, our origin', () => {
  const sessionToken = 'a'.repeat(43);
  const csrfToken = csrfTokenOf(sessionToken);
  const base = { method: 'POST', origin: undefined, host: '127.0.0.1:8080', csrfToken, sessionToken };
  assert.notEqual(csrfToken, sessionToken);
  assert.ok(writeAllowed(base, PUBLIC));
  assert.ok(writeAllowed({ ...base, origin: 'http://127.0.0.1:8080' }, PUBLIC));
  assert.ok(!writeAllowed({ ...base, origin: 'https://evil.test' }, PUBLIC));
  assert.ok(!writeAllowed({ ...base, csrfToken: undefined }, PUBLIC));
  assert.ok(!writeAllowed({ ...base, csrfToken: csrfTokenOf('b'.repeat(43)) }, PUBLIC), "another session's token");
  assert.ok(!writeAllowed({ ...base, method: 'DELETE', csrfToken: '' }, PUBLIC));
  // Reads need neither.
  assert.ok(writeAllowed({ ...base, method: 'GET', csrfToken: undefined, origin: 'https://evil.test' }, PUBLIC));
});
