// Every operation of the OpenAPI document has a method, grouped by tag: the document is the
// gateway's, rendered offline from its registry as GET /v1/openapi.json serves it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Client, OPERATIONS, type OperationSpec } from './index.js';

const RENDER = path.resolve(__dirname, '../../../services/gateway/dist/registry/render-openapi.js');

interface Doc {
  paths: Record<string, Record<string, { operationId: string; tags: string[]; 'x-alias-of'?: string }>>;
}

describe('the generated operations', () => {
  const doc = JSON.parse(execFileSync(process.execPath, [RENDER], { encoding: 'utf8', maxBuffer: 64 << 20 })) as Doc;
  const client = new Client({ apiKey: 'ock_x.y', baseUrl: 'http://127.0.0.1:9', login: false }) as unknown as Record<
    string,
    Record<string, unknown>
  >;
  const specs = OPERATIONS as Record<string, OperationSpec>;

  test('every operation of the document is a method of its tag’s group (regenerate: make generate)', () => {
    const missing: string[] = [];
    for (const [route, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        // An alias route is its capability's other address: the capability's own method serves it.
        if (op['x-alias-of']) {
          assert.ok(specs[op['x-alias-of']], `${op.operationId} aliases an operation with a method`);
          continue;
        }
        const spec = specs[op.operationId];
        if (!spec || spec.path !== route || spec.method !== method.toUpperCase()) {
          missing.push(`${method.toUpperCase()} ${route} (${op.operationId})`);
          continue;
        }
        assert.equal(spec.group, op.tags[0]?.toLowerCase());
        assert.equal(typeof client[spec.group]?.[spec.name], 'function', `client.${spec.group}.${spec.name}`);
      }
    assert.deepEqual(missing, [], 'operations without a method');
    const served = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)));
    assert.deepEqual(
      Object.keys(specs).filter((id) => !served.has(id)),
      [],
      'methods of operations the document no longer has',
    );
  });

  test('names follow the operationIds: the group’s own capability is start (POST) or get (GET)', () => {
    const name = (id: string) => `${specs[id]?.group}.${specs[id]?.name}`;
    assert.equal(name('crawl'), 'crawl.start');
    assert.equal(name('crawl.results'), 'crawl.results');
    assert.equal(name('sessions.network'), 'sessions.network');
    assert.equal(name('credits'), 'credits.get');
    assert.equal(name('connect.version'), 'browsers.connectVersion');
  });

  test('cursor-paged lists, streams and keyed POSTs are told apart from the document', () => {
    const paged = Object.values(specs)
      .filter((s) => s.page)
      .map((s) => `${s.id}:${s.page?.items}`);
    assert.ok(paged.includes('crawl.results:data') && paged.includes('sessions.list:sessions'), paged.join());
    assert.equal(specs['sessions.network']?.answer, 'ndjson');
    assert.equal(specs['sessions.live']?.answer, 'sse');
    assert.equal(specs.connect?.answer, 'redirect');
    for (const spec of Object.values(specs))
      assert.equal(spec.idempotent, spec.method === 'POST' && spec.answer === 'json', spec.id);
  });
});
