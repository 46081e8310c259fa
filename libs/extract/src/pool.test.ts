import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { extract } from './extract.js';
import { ExtractPool } from './pool.js';

const pool = new ExtractPool({ threads: 2 });
after(() => pool.close());

const page = (i: number) => `<html><head><title>Page ${i}</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Story ${i}</h1><p>${'The harbour master kept a careful log of every ship. '.repeat(20)}</p>
<p>See <a href="/more/${i}">more</a>.</p></article><footer>© archive</footer></body></html>`;

test('a worker thread extracts exactly what the main thread would', async () => {
  const options = { formats: ['markdown', 'text', 'links', 'metadata'] as const };
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      pool.extract(page(i), `https://example.org/s/${i}`, { formats: [...options.formats] }),
    ),
  );
  for (const [i, r] of results.entries()) {
    assert.deepEqual(r, extract(page(i), `https://example.org/s/${i}`, { formats: [...options.formats] }));
    assert.match(r.markdown, new RegExp(`Story ${i}`));
    assert.ok(r.links.includes(`https://example.org/more/${i}`));
  }
});
