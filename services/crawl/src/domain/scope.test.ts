import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePatterns, inScope, type ScopeRules, urlKey } from './scope.js';

test('a URL has one key however it is written', () => {
  const same = [
    'HTTP://Example.COM:80/a/b/?y=2&x=1#top',
    'http://example.com/a/b?x=1&y=2',
    'http://example.com/a/b/?utm_source=news&x=1&y=2',
    'http://user:pw@example.com/a/b?y=2&x=1&fbclid=abc',
  ];
  for (const u of same) assert.equal(urlKey(u), 'http://example.com/a/b?x=1&y=2', u);
  assert.equal(urlKey('https://example.com:443/'), 'https://example.com/');
  assert.equal(
    urlKey('http://example.com/articles/%33'),
    'http://example.com/articles/3',
    'unreserved escapes decoded',
  );
  assert.equal(
    urlKey('http://example.com/a%2fb%3f'),
    'http://example.com/a%2Fb%3F',
    'reserved escapes kept, upper-cased',
  );
  assert.equal(urlKey('https://example.com'), 'https://example.com/', 'the root keeps its slash');
  assert.notEqual(urlKey('http://example.com/a'), urlKey('https://example.com/a'), 'the scheme matters');
  assert.notEqual(urlKey('http://example.com/A'), urlKey('http://example.com/a'), 'paths are case-sensitive');
  assert.equal(urlKey('http://example.com/a?page=2', { ignoreQuery: true }), 'http://example.com/a');
  assert.equal(urlKey('mailto:x@example.com'), undefined);
  assert.equal(urlKey('not a url'), undefined);
});

test('a key is its own key (a worker drops a link that is a key it knows without parsing it)', () => {
  const spellings = [
    'HTTP://Example.COM:80/a/b/?y=2&x=1#top',
    'http://example.com/a%2fb%3f?q=a+b&q=%20c&utm_medium=x',
    'http://example.com/articles/%33//',
    'https://example.com:8443/%7Euser/?z=&a=%7E&a=1',
    'http://example.com/path%2541?k=v%26w',
    'http://[::1]:8080/x?b=2&a=1',
  ];
  for (const u of spellings)
    for (const options of [{}, { ignoreQuery: true }]) {
      const key = urlKey(u, options);
      assert.ok(key, u);
      assert.equal(urlKey(key, options), key, `${u} ${JSON.stringify(options)}`);
    }
});

const rules = (over: Partial<ScopeRules> = {}): ScopeRules => ({
  start: new URL('https://www.example.com/docs/'),
  maxDepth: 3,
  includePaths: [],
  excludePaths: [],
  allowSubdomains: false,
  allowExternalLinks: false,
  ...over,
});

test('scope: same site only by default, subdomains and other sites on request', () => {
  const u = (s: string) => new URL(s);
  assert.ok(inScope(u('https://www.example.com/a'), 1, rules()));
  assert.ok(inScope(u('https://example.com/a'), 1, rules()), 'www. and the bare host are one site');
  assert.ok(!inScope(u('https://blog.example.com/a'), 1, rules()));
  assert.ok(inScope(u('https://blog.example.com/a'), 1, rules({ allowSubdomains: true })));
  assert.ok(
    !inScope(u('https://evil-example.com/a'), 1, rules({ allowSubdomains: true })),
    'a suffix is not a subdomain',
  );
  assert.ok(!inScope(u('https://other.org/a'), 1, rules({ allowSubdomains: true })));
  assert.ok(inScope(u('https://other.org/a'), 1, rules({ allowExternalLinks: true })));
});

test('scope: depth, resources that are not pages, include and exclude patterns', () => {
  const u = (s: string) => new URL(s);
  assert.ok(!inScope(u('https://www.example.com/a'), 4, rules()), 'beyond maxDepth');
  for (const file of ['/logo.PNG', '/app.js', '/style.css', '/file.zip', '/font.woff2'])
    assert.ok(!inScope(u(`https://www.example.com${file}`), 1, rules()), file);
  const include = compilePatterns(['^/blog/']) as RegExp[];
  const exclude = compilePatterns(['/drafts/', 'page=\\d+']) as RegExp[];
  const r = rules({ includePaths: include, excludePaths: exclude });
  assert.ok(inScope(u('https://www.example.com/blog/post'), 1, r));
  assert.ok(!inScope(u('https://www.example.com/about'), 1, r), 'not included');
  assert.ok(!inScope(u('https://www.example.com/blog/drafts/x'), 1, r), 'excluded wins');
  assert.ok(!inScope(u('https://www.example.com/blog/?page=2'), 1, r), 'patterns see the query too');
  assert.deepEqual(compilePatterns(['ok', '(bad']), { bad: 1 });
});
