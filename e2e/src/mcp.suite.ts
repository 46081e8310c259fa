// The MCP server at /mcp through the real fleet, driven by the official MCP
// SDK's client over Streamable HTTP as an AI agent would: the tools are the
// registry's rows with their schemas, a scrape bills as on REST, a crawl is
// started and paged, and every failure is the Error object (docs/errors.md).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: TestSite;
let key: string;

/** A connected MCP client with `apiKey` as its bearer credential. */
async function connect(apiKey: string | undefined) {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${fleet.gatewayUrl}/mcp`), {
    requestInit: { headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {} },
  });
  await client.connect(transport);
  return client;
}

type ErrorObject = { code: string; message: string; details?: Record<string, unknown> };
const errorOf = (answer: unknown) => {
  const result = answer as { isError?: boolean; content?: { type: string; text: string }[] };
  assert.equal(result.isError, true, JSON.stringify(result));
  const [first] = result.content ?? [];
  return JSON.parse(first?.text ?? '{}') as ErrorObject;
};

describe('MCP at /mcp', () => {
  before(async () => {
    site = await startTestSite({ pages: 6, host: '127.0.0.2' });
    await sharedFleet('site');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  after(async () => {
    await site?.close();
  });

  test('the tools are the registry rows, with their schemas and annotations', async () => {
    const client = await connect(key);
    try {
      assert.equal(client.getServerVersion()?.name, 'web-access');
      const { tools } = await client.listTools();
      const document = (
        await call<{ paths: Record<string, Record<string, { 'x-mcp-tool'?: string }>> }>(
          fleet.gatewayUrl,
          'GET',
          '/v1/openapi.json',
        )
      ).body;
      const rows = Object.values(document.paths)
        .flatMap((ops) => Object.values(ops).map((op) => op['x-mcp-tool']))
        .filter((name): name is string => typeof name === 'string')
        .sort();
      assert.deepEqual(tools.map((t) => t.name).sort(), rows, 'one tool per registry row, none twice');
      const scrape = tools.find((t) => t.name === 'service_scrape_page');
      assert.ok(scrape);
      assert.equal(scrape.inputSchema.type, 'object');
      assert.ok('url' in (scrape.inputSchema.properties ?? {}), 'the scrape body is the input');
      assert.deepEqual(scrape.inputSchema.required, ['url']);
      assert.equal(scrape.outputSchema?.type, 'object');
      assert.deepEqual(
        [scrape.annotations?.readOnlyHint, scrape.annotations?.openWorldHint],
        [false, true],
        'a scrape reaches the open web',
      );
      const get = tools.find((t) => t.name === 'service_crawl_get');
      assert.deepEqual([get?.annotations?.readOnlyHint, get?.annotations?.openWorldHint], [true, false]);
      assert.ok('id' in (get?.inputSchema.properties ?? {}), 'path parameters are arguments');
      const remove = tools.find((t) => t.name === 'service_sessions_delete');
      assert.equal(remove?.annotations?.destructiveHint, true);
    } finally {
      await client.close();
    }
  });

  test('a scrape through MCP answers its content and usage and moves the credits by one', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const client = await connect(apiKey);
    try {
      const before = await availableCredits(fleet.gatewayUrl, apiKey);
      const article = site.article(2);
      const result = await client.callTool({
        name: 'service_scrape_page',
        arguments: { url: `${site.url}/articles/2`, formats: ['markdown'] },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const out = result.structuredContent as { data: { markdown: string }; usage: { credits: number } };
      assert.ok(out.data.markdown.includes(article.title));
      assert.deepEqual(out.usage, { credits: 1, meters: { page_load: 1 } });
      const [text] = result.content as { type: string; text: string }[];
      assert.deepEqual(JSON.parse(text?.text ?? ''), out, 'the text content is the same object');
      await until(
        'the credits moved by one',
        async () => (await availableCredits(fleet.gatewayUrl, apiKey)) === before - 1,
      );
    } finally {
      await client.close();
    }
  });

  test('a crawl answers an id at once; its results page with their cursor until it is done', async () => {
    const client = await connect(key);
    try {
      const started = await client.callTool({
        name: 'service_crawl_start',
        arguments: { url: `${site.url}/`, limit: 5 },
      });
      assert.notEqual(started.isError, true, JSON.stringify(started));
      const { id } = started.structuredContent as { id: string };
      assert.match(id, /^[0-9a-f-]{36}$/);
      await until('the crawl is done', async () => {
        const got = await client.callTool({ name: 'service_crawl_get', arguments: { id } });
        return (got.structuredContent as { crawl: { status: string } }).crawl.status === 'settled';
      });
      const urls: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.callTool({
          name: 'service_crawl_results',
          arguments: { id, limit: 2, ...(cursor && { cursor }) },
        });
        assert.notEqual(page.isError, true, JSON.stringify(page));
        const out = page.structuredContent as {
          data: { metadata: { sourceURL?: string; url?: string } }[];
          nextCursor: string | null;
        };
        urls.push(...out.data.map((d) => d.metadata.url ?? ''));
        cursor = out.nextCursor ?? undefined;
      } while (cursor);
      assert.equal(urls.length, 5, JSON.stringify(urls));
      assert.equal(new Set(urls).size, 5, 'each page once');
    } finally {
      await client.close();
    }
  });

  test('failures are the Error object: a bad argument, a plan limit; protocol errors stay JSON-RPC', async () => {
    const client = await connect(key);
    try {
      // As an agent does: the tools first. The client then holds each tool's output schema and checks results against it.
      await client.listTools();
      const bad = errorOf(await client.callTool({ name: 'service_scrape_page', arguments: { url: 'not a url' } }));
      assert.equal(bad.code, 'bad_request');
      assert.ok(JSON.stringify(bad.details).includes('url'), JSON.stringify(bad));
      const extra = errorOf(await client.callTool({ name: 'service_credits_get', arguments: { surprise: 1 } }));
      assert.equal(extra.code, 'bad_request', 'an argument the tool does not have is named');
      await assert.rejects(client.callTool({ name: 'service_nothing', arguments: {} }), /service_nothing/);
    } finally {
      await client.close();
    }
    // A workspace whose allowance is spent: the plan's limit, as on REST.
    const ws = `mcp-broke-${Date.now()}`;
    await fleet.admin('workspace', 'create', ws, '--plan', 'free', '--allowance', '0');
    const { apiKey: broke } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
    const poor = await connect(broke);
    try {
      const refused = errorOf(
        await poor.callTool({ name: 'service_scrape_page', arguments: { url: `${site.url}/articles/1` } }),
      );
      assert.equal(refused.code, 'quota_exceeded');
    } finally {
      await poor.close();
    }
  });

  test('a call that takes a while sends progress notifications to a client that asked', async () => {
    // A page that answers after 5 s, on the one loopback address the fleet may reach.
    const slow = createServer((_req, res) => {
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>slow</title><p>at last</p>'),
        5_000,
      );
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.2', r));
    const client = await connect(key);
    try {
      const seen: { progress: number; message?: string }[] = [];
      const result = await client.callTool(
        {
          name: 'service_scrape_page',
          arguments: { url: `http://127.0.0.2:${(slow.address() as { port: number }).port}/` },
        },
        undefined,
        { onprogress: (p) => seen.push(p), timeout: 60_000 },
      );
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.ok(seen.length >= 1, 'at least one progress notification before the answer');
      assert.deepEqual(
        seen.map((p) => p.progress),
        seen.map((_, i) => i + 1),
        'progress only goes up',
      );
    } finally {
      await client.close();
      slow.close();
    }
  });

  test("the MCP Inspector's CLI lists the tools and calls one", async () => {
    const { apiKey } = await fleet.workspace('pro');
    const cli = path.join(
      path.dirname(createRequire(__filename).resolve('@modelcontextprotocol/inspector-cli/package.json')),
      'build/index.js',
    );
    const inspect = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [cli, `${fleet.gatewayUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${apiKey}`, ...args],
        // It looks for its package.json relative to the working directory: run it from its own build directory.
        { timeout: 60_000, cwd: path.dirname(cli) },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const listed = (await inspect('--method', 'tools/list')) as { tools: { name: string }[] };
    assert.ok(listed.tools.some((t) => t.name === 'service_scrape_page'));
    const called = (await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'service_scrape_page',
      '--tool-arg',
      `url=${site.url}/articles/4`,
    )) as { structuredContent: { data: { markdown: string }; usage: { credits: number } } };
    assert.ok(called.structuredContent.data.markdown.includes(site.article(4).title));
    assert.equal(called.structuredContent.usage.credits, 1);
  });

  test("every MCP request counts against the plan's requests per minute, shared with REST; over it, 429 before JSON-RPC", async () => {
    const { apiKey } = await fleet.workspace('free'); // 120 requests per minute
    const post = async (body: unknown) => {
      const res = await fetch(`${fleet.gatewayUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${apiKey}`,
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id,
      method,
      params,
    });
    /** The requests a REST read says are left this minute (its `RateLimit` header's `r`). */
    const restLeft = async () => {
      const r = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: apiKey });
      return Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
    };
    // The limiter weighs the previous clock minute in: the counts below are exact within one minute.
    await until('20 s or more left in this minute', async () => Date.now() % 60_000 < 40_000, 25_000);
    const minute = Math.floor(Date.now() / 60_000);
    const first = await restLeft();
    // A tool call counts once; a list counts; a batch counts each of its messages.
    const called = await post(rpc(1, 'tools/call', { name: 'service_credits_get', arguments: {} }));
    assert.equal(called.status, 200, called.text);
    assert.match(called.headers.get('ratelimit') ?? '', /^"workspace";r=\d+;t=\d+$/, 'the budget left, as on REST');
    assert.equal((await post(rpc(2, 'tools/list'))).status, 200);
    const batch = await post([rpc(3, 'tools/list'), rpc(4, 'ping'), rpc(5, 'ping')]);
    assert.equal(batch.status, 200, batch.text);
    const left = await restLeft();
    assert.equal(left, first - 6, 'a call, a list, a batch of three and this read');
    // Protocol methods alone spend the rest of the budget (they used to be free).
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) {
      const round = await Promise.all(Array.from({ length: 8 }, (_, j) => post(rpc(10 + i * 8 + j, 'tools/list'))));
      statuses.push(...round.map((r) => r.status));
    }
    assert.deepEqual(
      [statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length],
      [left, 128 - left],
      'exactly what was left is admitted, the rest refused',
    );
    // Over the limit an initialize, a list and a tool call are each refused as REST refuses, before any JSON-RPC.
    for (const body of [
      rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'e2e', version: '1' },
      }),
      rpc(2, 'tools/list'),
      rpc(3, 'tools/call', { name: 'service_credits_get', arguments: {} }),
    ]) {
      const limited = await post(body);
      assert.equal(limited.status, 429, `${body.method}: ${limited.text}`);
      const error = JSON.parse(limited.text) as ErrorObject;
      assert.deepEqual(
        [error.code, error.details?.kind, error.details?.limit],
        ['concurrency_limit', 'requests_per_minute', 120],
        limited.text,
      );
      assert.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After');
      assert.match(limited.headers.get('ratelimit-policy') ?? '', /q=120;w=60/);
    }
    await assert.rejects(connect(apiKey), /429|concurrency_limit/, 'an SDK client cannot connect either');
    assert.equal((await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: apiKey })).status, 429, 'one budget');
    assert.equal(Math.floor(Date.now() / 60_000), minute, 'all of it within one minute of the clock');
  });

  test('without a valid credential there is no session: 401 with the Error object; a REST-only key is tenant_scope', async () => {
    const answer = async (apiKey: string | undefined) => {
      const res = await fetch(`${fleet.gatewayUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(apiKey && { authorization: `Bearer ${apiKey}` }),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
        }),
      });
      const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
      const body = (json ? await res.json() : { code: '', message: await res.text() }) as ErrorObject;
      return { status: res.status, challenge: res.headers.get('www-authenticate'), body };
    };
    const missing = await answer(undefined);
    assert.deepEqual([missing.status, missing.body.code], [401, 'unauthorized']);
    assert.match(missing.challenge ?? '', /^Bearer /);
    await assert.rejects(connect(undefined), /unauthorized/);
    // A key revoked is refused on the next request.
    const { apiKey, keyId } = await fleet.workspace('pro');
    assert.equal((await answer(apiKey)).status, 200);
    await fleet.admin('key', 'revoke', keyId);
    const revoked = await answer(apiKey);
    assert.deepEqual([revoked.status, revoked.body.code], [401, 'unauthorized']);
    const ws = `mcp-rest-only-${Date.now()}`;
    await fleet.admin('workspace', 'create', ws, '--plan', 'pro');
    const restOnly = await fleet.admin<{ apiKey: string }>('key', 'create', ws, '--surfaces', 'rest');
    const scoped = await answer(restOnly.apiKey);
    assert.deepEqual([scoped.status, scoped.body.code], [403, 'tenant_scope']);
    const get = await fetch(`${fleet.gatewayUrl}/mcp`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(get.status, 405, 'no standalone stream: the server keeps no sessions');
  });
});
