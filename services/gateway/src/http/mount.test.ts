// The REST mount of registry rows on a real gateway (its composition root, a fresh database,
// NATS, HTTP) with rows made for the test: a row's alias route, the idempotency key as
// Firecrawl's clients send it (`x-idempotency-key`) beside the one we name (`Idempotency-Key`),
// and the bodies of rows with files: their own limit, and multipart/form-data read as JSON.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '@wap/config';
import type { NatsLink } from '@wap/events';
import { infra, quietLog, TEST_SERVICE_TOKEN, testNats } from '@wap/testkit';
import { z } from 'zod';
import { env } from '../config.js';
import { openGateway } from '../gateway.js';
import { mcpTools } from '../mcp/tools.js';
import { IdentityStore } from '../oauth/identity.js';
import { type Capability, capability } from '../registry/types.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';

const log = quietLog('gateway-test');
/** The gateway's body limit here: small, so the tests' bodies pass it with little. */
const MAX_BODY = 2048;

let database: TestDatabase;
let link: NatsLink;
let gateway: ReturnType<typeof openGateway>;
let url: string;
let apiKey: string;
/** How many times each test row's handler ran. */
const ran = { create: 0, stop: 0 };

const base = {
  tag: 'Usage' as const,
  summary: 'test row',
  backend: 'billing-ledger' as const,
  bills: [],
  errors: [],
  request: {},
};

const fileInput = z.strictObject({ name: z.string(), mimeType: z.string().optional(), data: z.base64() });
const fileSeen = z.object({ name: z.string(), mimeType: z.string().nullable(), size: z.number(), sha256: z.string() });
/** What a handler got of a file: its bytes by size and digest. */
const seen = (f: z.infer<typeof fileInput>) => {
  const bytes = Buffer.from(f.data, 'base64');
  return {
    name: f.name,
    mimeType: f.mimeType ?? null,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
};

const rows: Capability[] = [
  capability({
    ...base,
    name: 'test.create',
    method: 'post',
    path: '/v1/things',
    mcpTool: 'service_test_create',
    request: { body: z.strictObject({ name: z.string() }) },
    response: z.object({ id: z.string(), name: z.string() }),
    handler: async (ctx, { body }) => {
      ran.create++;
      return { id: ctx.operationId, name: body.name };
    },
  }),
  capability({
    ...base,
    name: 'test.get',
    method: 'get',
    path: '/v1/things/{id}',
    mcpTool: 'service_test_get',
    request: { params: z.strictObject({ id: z.string() }) },
    response: z.object({ id: z.string() }),
    handler: async (_ctx, { params }) => ({ id: params.id }),
  }),
  capability({
    ...base,
    name: 'test.stop',
    method: 'post',
    path: '/v1/things/{id}/stop',
    mcpTool: 'service_test_stop',
    alsoAt: [{ method: 'delete', path: '/v1/things/{id}', description: 'Another client’s form of the stop.' }],
    request: { params: z.strictObject({ id: z.string().max(5) }) },
    response: z.object({ stopped: z.string() }),
    handler: async (_ctx, { params }) => {
      ran.stop++;
      return { stopped: params.id };
    },
  }),
  capability({
    ...base,
    name: 'test.upload',
    method: 'post',
    path: '/v1/uploads',
    mcpTool: 'service_test_upload',
    files: { field: 'files', most: 2, fileBytes: 1000, totalBytes: 1500 },
    request: { body: z.strictObject({ note: z.string().optional(), files: z.array(fileInput).optional() }) },
    response: z.object({ note: z.string().nullable(), files: z.array(fileSeen) }),
    handler: async (_ctx, { body }) => ({ note: body.note ?? null, files: (body.files ?? []).map(seen) }),
  }),
  capability({
    ...base,
    name: 'test.upload.one',
    method: 'post',
    path: '/v1/uploads/one',
    mcpTool: 'service_test_upload_one',
    files: { field: 'file', most: 1, fileBytes: 1000, totalBytes: 1000 },
    request: { body: fileInput },
    response: fileSeen,
    handler: async (_ctx, { body }) => seen(body),
  }),
];

before(async () => {
  database = await freshDatabase(4);
  link = await testNats('mount-test', log);
  const identity = new IdentityStore(database.db);
  const ws = await identity.createWorkspace('mount-test', 'pro');
  apiKey = (await identity.createApiKey(ws.id, 'test')).credential;
  const config = loadConfig(env, {
    DATABASE_URL: database.url,
    NATS_URL: infra().natsUrl,
    SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    NATS_NAMESPACE: `mount_${randomUUID().slice(0, 8)}_`,
    HTTP_PORT: '0',
    STRICT_CONTRACTS: 'true',
    MAX_BODY_BYTES: String(MAX_BODY),
  });
  gateway = openGateway(config, database.db, link, log, { registry: () => rows });
  url = (await gateway.start()).url;
});

after(async () => {
  await gateway?.stop();
  await link?.drain();
  await database?.close();
});

const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A refusal as the Error object; the paths its issues name. */
async function refused(res: Response, status: number, code: string): Promise<string[]> {
  const body = (await res.json()) as { code: string; message: string; details?: { issues?: { path: string }[] } };
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  return (body.details?.issues ?? []).map((i) => i.path);
}

describe('an alias route', () => {
  test('runs its row: the same handler, input checks and answer', async () => {
    const before = ran.stop;
    const viaRow = await send('POST', '/v1/things/a1/stop');
    const viaAlias = await send('DELETE', '/v1/things/a1');
    assert.equal(viaAlias.status, 200);
    assert.deepEqual(await viaAlias.json(), await viaRow.json());
    assert.equal(ran.stop - before, 2, 'both ran the stop');
    assert.deepEqual(await refused(await send('DELETE', '/v1/things/toolong'), 400, 'bad_request'), ['path.id']);
    assert.equal((await send('GET', '/v1/things/a1')).status, 200, 'the path keeps its own GET');
  });

  test('is a method of its path for 405: Allow names it', async () => {
    const res = await send('PUT', '/v1/things/a1', {}, {});
    await refused(res, 405, 'method_not_allowed');
    assert.equal(res.headers.get('allow'), 'GET, DELETE, HEAD');
  });

  test('adds no MCP tool of its own', () => {
    assert.deepEqual(
      mcpTools(rows).map((t) => t.definition.name),
      [
        'service_test_create',
        'service_test_get',
        'service_test_stop',
        'service_test_upload',
        'service_test_upload_one',
      ],
    );
  });
});

describe('x-idempotency-key', () => {
  const create = (headers: Record<string, string>, name = 'n') => send('POST', '/v1/things', headers, { name });

  test('is read as Idempotency-Key when that is absent: a retry runs the work once', async () => {
    const before = ran.create;
    const key = `fc-${randomUUID()}`;
    const first = await create({ 'x-idempotency-key': key });
    const again = await create({ 'x-idempotency-key': key });
    assert.equal(first.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const body = (await first.json()) as { id: string };
    assert.deepEqual(await again.json(), body);
    assert.equal(ran.create - before, 1);
    // It is the same key: sent as Idempotency-Key, or as both, the retry is still the first answer.
    const forms: Record<string, string>[] = [
      { 'idempotency-key': key },
      { 'idempotency-key': key, 'x-idempotency-key': key },
    ];
    for (const headers of forms) {
      const retried = await create(headers);
      assert.deepEqual(await retried.json(), body, JSON.stringify(headers));
    }
    assert.equal(ran.create - before, 1);
    await refused(await create({ 'x-idempotency-key': key }, 'other'), 400, 'bad_request');
  });

  test('both headers with different keys are refused, naming the header, before any work', async () => {
    const before = ran.create;
    const both = { 'idempotency-key': `a-${randomUUID()}`, 'x-idempotency-key': `b-${randomUUID()}` };
    assert.deepEqual(await refused(await create(both), 400, 'bad_request'), ['header.X-Idempotency-Key']);
    const invalid = await create({ 'x-idempotency-key': 'two words' });
    assert.deepEqual(await refused(invalid, 400, 'bad_request'), ['header.X-Idempotency-Key']);
    assert.equal(ran.create, before, 'nothing ran');
  });

  test('off POST both headers are ignored, as a key always was', async () => {
    const res = await send('GET', '/v1/things/a1', { 'idempotency-key': 'a', 'x-idempotency-key': 'b' });
    assert.equal(res.status, 200);
  });
});

describe('a body that carries files', () => {
  /** MAX_BODY plus the base64 of the 1500 bytes of files /v1/uploads takes. */
  const UPLOAD_LIMIT = MAX_BODY + 2000;
  const file = (size: number, seed: number) => Buffer.alloc(size, seed);
  const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const post = (path: string, body: string | FormData, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, ...headers }, body });
  const form = (parts: [string, string | [Buffer, string, string]][]) => {
    const data = new FormData();
    for (const [name, value] of parts)
      if (typeof value === 'string') data.append(name, value);
      else data.append(name, new Blob([value[0]], { type: value[1] }), value[2]);
    return data;
  };

  test('a row without files keeps the default limit; one with files takes their base64 on top', async () => {
    const plain = await send('POST', '/v1/things', {}, { name: 'x'.repeat(MAX_BODY) });
    assert.equal(plain.status, 413);
    const answer = (await plain.json()) as { code: string; details: unknown };
    assert.deepEqual([answer.code, answer.details], ['bad_request', { limit: MAX_BODY }]);
    const files = [file(700, 1), file(700, 2)];
    const json = await send(
      'POST',
      '/v1/uploads',
      {},
      {
        note: 'two',
        files: files.map((f, i) => ({ name: `f${i}.bin`, data: f.toString('base64') })),
      },
    );
    assert.equal(json.status, 200, await json.clone().text());
    assert.deepEqual(await json.json(), {
      note: 'two',
      files: files.map((f, i) => ({ name: `f${i}.bin`, mimeType: null, size: 700, sha256: digest(f) })),
    });
    const over = await send('POST', '/v1/uploads', {}, { note: 'x'.repeat(UPLOAD_LIMIT) });
    assert.equal(over.status, 413);
    assert.deepEqual(((await over.json()) as { details: unknown }).details, { limit: UPLOAD_LIMIT });
  });

  test('multipart/form-data is read as the JSON it stands for: files as parts, the other fields in body', async () => {
    const files = [file(1000, 3), file(500, 4)];
    const res = await post(
      '/v1/uploads',
      form([
        ['body', JSON.stringify({ note: 'parts' })],
        ['files', [files[0] as Buffer, 'text/csv', 'orders.csv']],
        ['files', [files[1] as Buffer, 'image/png', 'logo.png']],
      ]),
    );
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), {
      note: 'parts',
      files: [
        { name: 'orders.csv', mimeType: 'text/csv', size: 1000, sha256: digest(files[0] as Buffer) },
        { name: 'logo.png', mimeType: 'image/png', size: 500, sha256: digest(files[1] as Buffer) },
      ],
    });
    // One file as the body itself: named by its part, or by the body part.
    const one = await post('/v1/uploads/one', form([['file', [file(10, 5), 'text/plain', 'a.txt']]]));
    assert.deepEqual(await one.json(), {
      name: 'a.txt',
      mimeType: 'text/plain',
      size: 10,
      sha256: digest(file(10, 5)),
    });
    const renamed = await post(
      '/v1/uploads/one',
      form([
        ['body', JSON.stringify({ name: 'b.txt' })],
        ['file', [file(10, 5), 'text/plain', 'a.txt']],
      ]),
    );
    assert.equal(((await renamed.json()) as { name: string }).name, 'b.txt');
  });

  test('what breaks a limit or the form is refused, naming the part; past the body limit, 413', async () => {
    const cases: [string, FormData, string][] = [
      ['a file too large', form([['files', [file(1001, 6), 'a/b', 'big.bin']]]), 'body.files.0.data'],
      [
        'one file too many',
        form([
          ['files', [file(1, 1), 'a/b', '1']],
          ['files', [file(1, 1), 'a/b', '2']],
          ['files', [file(1, 1), 'a/b', '3']],
        ]),
        'body.files',
      ],
      [
        'files past their total',
        form([
          ['files', [file(800, 1), 'a/b', '1']],
          ['files', [file(800, 1), 'a/b', '2']],
        ]),
        'body.files',
      ],
      ['a part the route does not know', form([['other', 'x']]), 'body.other'],
      ['a body part that is not JSON', form([['body', '{']]), 'body.body'],
      ['files in the body part', form([['body', '{"files":[]}']]), 'body.files'],
      ['a body part that is not an object', form([['body', '[1]']]), 'body.body'],
    ];
    for (const [what, data, path] of cases)
      assert.deepEqual(await refused(await post('/v1/uploads', data), 400, 'bad_request'), [path], what);
    assert.deepEqual(await refused(await post('/v1/uploads/one', form([])), 400, 'bad_request'), ['body.file']);
    const text = await post('/v1/uploads', 'hello', { 'content-type': 'text/plain' });
    assert.equal(text.status, 415);
    assert.match(JSON.stringify(await text.json()), /multipart\/form-data/);
    const broken = await post('/v1/uploads', 'no parts here', { 'content-type': 'multipart/form-data; boundary=x' });
    assert.deepEqual(await refused(broken, 400, 'bad_request'), ['body']);

    // Over the limit: said by Content-Length, refused unread; sent in chunks, refused once read.
    const large = form([['body', JSON.stringify({ note: 'x'.repeat(UPLOAD_LIMIT) })]]);
    const declared = await post('/v1/uploads', large);
    assert.equal(declared.status, 413);
    assert.deepEqual(((await declared.json()) as { details: unknown }).details, { limit: UPLOAD_LIMIT });
    const request = new Request(`${url}/v1/uploads`, { method: 'POST', body: large });
    const chunked = await fetch(`${url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': request.headers.get('content-type') ?? '' },
      body: request.body,
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assert.deepEqual(((await chunked.json()) as { details: unknown }).details, { limit: UPLOAD_LIMIT });
  });
});
