// What POST /v1/agent takes and refuses, through the fleet (docs/agent.md, docs/secrets.md):
// a purchase currency that is no ISO 4217 code and an output schema no model can answer in
// are 400 bad_request naming the field, before anything is held: no run, no credit. Files up
// to the documented 10 MB go with a submit and to a run, as base64 JSON or multipart/form-data,
// while every other route keeps the 1 MiB body limit; a file name that is a path, `..`, or
// hides characters is refused, and markup in one reaches the model quoted as data. The runs
// are the browsers fleet's, its scripted model finishing at once, or asking a question to keep
// a run open.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { availableCredits, call, type Reply } from './api.js';
import { asking, promptOf } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

interface RunFile {
  name: string;
  mimeType: string;
  size: number;
}
interface Run {
  maxSteps: number;
  files: RunFile[];
}

/** The paths a bad_request's issues name. */
function refusedAt(reply: Reply): string[] {
  assert.equal(reply.status, 400, JSON.stringify(reply.body));
  assert.equal(reply.body.code, 'bad_request', JSON.stringify(reply.body));
  return ((reply.body.details as { issues?: { path: string }[] } | undefined)?.issues ?? []).map((i) => i.path);
}

/** An object schema `levels` objects deep, a string inside the last. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema }, required: ['inner'] };
  return schema;
}

describe('POST /v1/agent: what a submit refuses before it holds anything', () => {
  let key: string;
  const submit = (body: Record<string, unknown>) => call(fleet.gatewayUrl, 'POST', '/v1/agent', { key, body });

  before(async () => {
    await sharedFleet('browsers');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  /** Nothing was held: no run was written, no credit moved. */
  async function nothingHeld(credits: number) {
    const runs = await call<{ runs: unknown[] }>(fleet.gatewayUrl, 'GET', '/v1/agent', { key });
    assert.deepEqual(runs.body.runs, []);
    assert.equal(await availableCredits(fleet.gatewayUrl, key), credits);
  }

  test('a purchase currency must be an ISO 4217 code', async () => {
    const credits = await availableCredits(fleet.gatewayUrl, key);
    for (const currency of ['ZZZ', 'XXX', 'eur'])
      assert.deepEqual(
        refusedAt(await submit({ task: 'Buy a lamp', purchases: { spendCap: 1_000, currency } })),
        ['purchases.currency'],
        currency,
      );
    await nothingHeld(credits);
  });

  test('an output schema must be one a model can answer in: no $ref recursion, 10 levels, 200 properties', async () => {
    const credits = await availableCredits(fleet.gatewayUrl, key);
    const properties = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`p${i}`, { type: 'string' }]));
    for (const outputSchema of [
      { type: 'object', properties: { next: { $ref: '#' } } },
      { $ref: '#' },
      { $defs: { a: { type: 'array', items: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' },
      nested(11),
      { type: 'object', properties },
    ])
      assert.deepEqual(
        refusedAt(await submit({ task: 'Answer in the schema', outputSchema })),
        ['outputSchema'],
        JSON.stringify(outputSchema).slice(0, 200),
      );
    await nothingHeld(credits);
  });

  test('at the limits, a currency and a schema are taken', async () => {
    const taken = await submit({
      task: 'Buy a lamp within the limits',
      purchases: { spendCap: 1_000, currency: 'EUR' },
      outputSchema: nested(10),
    });
    assert.equal(taken.status, 202, JSON.stringify(taken.body));
  });
});

describe('agent files: the body limits agree with the files a run takes', () => {
  let key: string;
  const MB = 1024 * 1024;
  /** What the agent routes take: the 1 MiB default, plus the base64 of 10 MB of files. */
  const FILES_LIMIT = MB + Math.ceil((10 * MB) / 3) * 4;
  const bytes = (n: number, seed: number) => Buffer.alloc(n, seed);
  const json = (name: string, data: Buffer) => ({ name, mimeType: 'application/pdf', data: data.toString('base64') });
  /** A multipart body sent as a browser's form would send it. */
  const multipart = (path: string, form: FormData) =>
    fetch(`${fleet.gatewayUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });

  /** A run that waits for an answer: its files stay until it ends. */
  async function waitingRun(extra: Record<string, unknown> = {}): Promise<Reply<{ id: string; run: Run }>> {
    const task = `Wait for a file ${randomUUID()}`;
    scripted.scripts.set(task, asking('Which file?'));
    return call<{ id: string; run: Run }>(fleet.gatewayUrl, 'POST', '/v1/agent', { key, body: { task, ...extra } });
  }

  before(async () => {
    await sharedFleet('browsers');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  test('a 2 MB file goes with a submit, and a 10 MB one to a run, as JSON', async () => {
    const submitted = await waitingRun({ files: [json('report.pdf', bytes(2 * MB, 1))] });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body).slice(0, 300));
    assert.deepEqual(
      submitted.body.run.files.map((f) => [f.name, f.size]),
      [['report.pdf', 2 * MB]],
    );
    const added = await call<{ file: RunFile }>(fleet.gatewayUrl, 'POST', `/v1/agent/${submitted.body.id}/files`, {
      key,
      body: json('scan.pdf', bytes(10 * MB, 2)),
    });
    assert.equal(added.status, 201, JSON.stringify(added.body).slice(0, 300));
    assert.equal(added.body.file.size, 10 * MB);
    await call(fleet.gatewayUrl, 'POST', `/v1/agent/${submitted.body.id}/cancel`, { key });
  });

  test('files come as multipart/form-data too, each a part, the other fields as JSON in a body part', async () => {
    const task = `Wait for a file ${randomUUID()}`;
    scripted.scripts.set(task, asking('Which file?'));
    const form = new FormData();
    form.append('body', JSON.stringify({ task, maxSteps: 5 }));
    form.append('files', new Blob([bytes(3 * MB, 3)], { type: 'text/csv' }), 'orders.csv');
    form.append('files', new Blob([bytes(1_000, 4)], { type: 'image/png' }), 'logo.png');
    const submitted = await multipart('/v1/agent', form);
    const run = (await submitted.json()) as { id: string; run: Run };
    assert.equal(submitted.status, 202, JSON.stringify(run).slice(0, 300));
    assert.equal(run.run.maxSteps, 5);
    assert.deepEqual(
      run.run.files.map((f) => [f.name, f.mimeType, f.size]),
      [
        ['orders.csv', 'text/csv', 3 * MB],
        ['logo.png', 'image/png', 1_000],
      ],
    );
    const one = new FormData();
    one.append('file', new Blob([bytes(10 * MB, 5)], { type: 'application/pdf' }), 'contract.pdf');
    const added = await multipart(`/v1/agent/${run.id}/files`, one);
    const file = ((await added.json()) as { file: RunFile }).file;
    assert.equal(added.status, 201);
    assert.deepEqual([file.name, file.mimeType, file.size], ['contract.pdf', 'application/pdf', 10 * MB]);

    // Past a file's limit, the part is named.
    const big = new FormData();
    big.append('file', new Blob([bytes(10 * MB + 1, 6)]), 'big.bin');
    const refused = await multipart(`/v1/agent/${run.id}/files`, big);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.deepEqual(refusedAt({ status: refused.status, headers: refused.headers, body }), ['body.file.data']);
    await call(fleet.gatewayUrl, 'POST', `/v1/agent/${run.id}/cancel`, { key });
  });

  test('a body past the route’s limit is 413 bad_request with the limit; other routes keep 1 MiB', async () => {
    const over = await call(fleet.gatewayUrl, 'POST', '/v1/agent', {
      key,
      body: { task: 'Too much', files: [json('a.bin', bytes(6 * MB, 7)), json('b.bin', bytes(6 * MB, 8))] },
    });
    assert.deepEqual([over.status, over.body.code, over.body.details], [413, 'bad_request', { limit: FILES_LIMIT }]);
    const secret = await call(fleet.gatewayUrl, 'POST', '/v1/secrets', {
      key,
      body: { handle: 'big', kind: 'env', value: 'x'.repeat(2 * MB), domains: ['example.com'] },
    });
    assert.deepEqual([secret.status, secret.body.code, secret.body.details], [413, 'bad_request', { limit: MB }]);
    const runs = await call<{ runs: unknown[] }>(fleet.gatewayUrl, 'GET', '/v1/agent', { key });
    assert.equal(runs.body.runs.length, 2, 'only the runs the tests before made');
  });

  test('a name that is `..`, a path, or hides characters is refused, naming it; HTML is quoted as data', async () => {
    const bad = [
      '..',
      '.',
      '   ',
      'a/b.pdf',
      'a\\b.pdf',
      '../../etc/passwd',
      'invoice\u202Egpj.exe',
      'cv\u200B.pdf',
      'a\u0007.txt',
    ];
    const file = (name: string) => ({ name, data: 'aGk=' });
    for (const name of bad)
      assert.deepEqual(
        refusedAt(await call(fleet.gatewayUrl, 'POST', '/v1/agent', { key, body: { task: 'x', files: [file(name)] } })),
        ['files.0.name'],
        JSON.stringify(name),
      );
    const open = await waitingRun();
    for (const name of bad)
      assert.deepEqual(
        refusedAt(await call(fleet.gatewayUrl, 'POST', `/v1/agent/${open.body.id}/files`, { key, body: file(name) })),
        ['file.name'],
        JSON.stringify(name),
      );
    // A multipart part's filename is taken as sent: its path is refused, not cut off.
    const form = new FormData();
    form.append('body', JSON.stringify({ task: 'x' }));
    form.append('files', new Blob(['hi']), '../secret.txt');
    const sent = await multipart('/v1/agent', form);
    const body = (await sent.json()) as Record<string, unknown>;
    assert.deepEqual(refusedAt({ status: sent.status, headers: sent.headers, body }), ['files.0.name']);
    await call(fleet.gatewayUrl, 'POST', `/v1/agent/${open.body.id}/cancel`, { key });

    // Markup is a name like another: kept as given, and quoted as data where the model reads it.
    const html = '<img src=x onerror=alert(1)>".png';
    const task = `Look at the image ${randomUUID()}`;
    const run = await call<{ id: string; run: Run }>(fleet.gatewayUrl, 'POST', '/v1/agent', {
      key,
      body: { task, files: [{ name: html, mimeType: 'image/png', data: 'aGk=' }] },
    });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    assert.equal(run.body.run.files[0]?.name, html);
    let prompt: string | undefined;
    await until('the model to be asked', async () => {
      prompt = scripted.model.requests.map(promptOf).find((p) => p.includes(task));
      return prompt !== undefined;
    });
    const line = prompt?.split('\n').find((l) => l.startsWith('Files you can attach: '));
    assert.match(
      line ?? '',
      /^Files you can attach: file_[\w-]+ "<img src=x onerror=alert\(1\)>\\"\.png" \(image\/png\)$/,
    );
  });

  test('the OpenAPI document offers multipart/form-data on the three routes with files, and only there', async () => {
    const doc = await call<{ paths: Record<string, Record<string, { requestBody?: { content: object } }>> }>(
      fleet.gatewayUrl,
      'GET',
      '/v1/openapi.json',
    );
    const multipartAt = Object.entries(doc.body.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        op.requestBody && 'multipart/form-data' in op.requestBody.content ? [`${method} ${path}`] : [],
      ),
    );
    assert.deepEqual(multipartAt.sort(), ['post /v1/agent', 'post /v1/agent/{id}/files', 'post /v1/parse']);
  });
});

describe('a run the plan has no browser for waits queued, then runs', () => {
  interface Event {
    kind: string;
    message: string;
    data: Record<string, unknown>;
  }
  const events = async (key: string, id: string) =>
    (await call<{ events: Event[] }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}/events?level=summary`, { key })).body
      .events ?? [];

  before(() => sharedFleet('browsers'));

  test('the submit is taken at once; the run waits for a browser, says so, and starts when one frees', async () => {
    // The free plan's two browsers, both held by CDP clients.
    const { apiKey: key } = await fleet.workspace('free');
    const connect = () =>
      puppeteer.connect({
        browserWSEndpoint: `${fleet.gatewayUrl.replace(/^http/, 'ws')}/connect`,
        headers: { authorization: `Bearer ${key}` },
      });
    const held = [await connect(), await connect()];
    try {
      const submitted = await call<{ id: string; run: { status: string } }>(fleet.gatewayUrl, 'POST', '/v1/agent', {
        key,
        body: { task: `Finish once a browser frees ${randomUUID()}` },
      });
      assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
      assert.equal(submitted.body.run.status, 'queued');
      const id = submitted.body.id;
      await until('the run says it waits for a browser', async () =>
        (await events(key, id)).some((e) => e.kind === 'waiting' && e.data.for === 'browser'),
      );
      const waiting = await call<{ run: { status: string } }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key });
      assert.equal(waiting.body.run.status, 'queued', 'a run without a browser stays queued');

      await held.pop()?.close();
      await until(
        'the run finishes once a browser frees',
        async () =>
          (await call<{ run: { status: string } }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key })).body.run
            .status === 'settled',
        90_000,
      );
      const running = (await events(key, id)).find((e) => e.kind === 'status' && e.data.status === 'running');
      assert.equal(running?.data.waitedFor, 'browser', JSON.stringify(running));
      assert.ok(Number(running?.data.queuedSeconds) >= 0, JSON.stringify(running));
      assert.match(running?.message ?? '', /^running, after \d+ s waiting for a browser$/);
    } finally {
      await Promise.all(held.map((b) => b.close()));
    }
  });
});
