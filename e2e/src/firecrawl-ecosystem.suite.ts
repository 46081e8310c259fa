// Tools of Firecrawl's ecosystem that take a self-hosted API URL, pointed at the fleet by that
// setting alone and driven as their users drive them (docs/migrating-from-firecrawl.md, "Tools
// built on Firecrawl"): Firecrawl's own MCP server (firecrawl-mcp, over stdio, FIRECRAWL_API_URL
// and FIRECRAWL_API_KEY) through the MCP SDK's client, LangChain's FireCrawlLoader
// (langchain-community, Python) in each of its modes and Firecrawl's CLI (firecrawl-cli, the
// same two settings), against a local site with a robots.txt and sitemaps. The browsers fleet: its scripted model answers the pages' json.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ERRORS } from '@wap/errors';
import { ROOT } from '@wap/fleet';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const run = promisify(execFile);
const PAGES = 12;
const TITLE_SCHEMA = { type: 'object', properties: { title: { type: 'string' } } };

/** A tool's answer: its structured content, or its error text. */
interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}
const textOf = (answer: ToolAnswer) => answer.content?.map((c) => c.text ?? '').join('\n') ?? '';

/** firecrawl-mcp over stdio, as an MCP host starts it: `npx firecrawl-mcp` with the two settings. */
async function startMcp(apiKey: string): Promise<Client> {
  const bin = createRequire(__filename).resolve('firecrawl-mcp/dist/index.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: { PATH: process.env.PATH ?? '', FIRECRAWL_API_URL: fleet.gatewayUrl, FIRECRAWL_API_KEY: apiKey },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'e2e-host', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('Firecrawl ecosystem tools', () => {
  let site: TestSite;
  const keys = { mcp: '', langchain: '', cli: '', http: '' };
  let mcp: Client;
  const tool = async (name: string, args: Record<string, unknown>) =>
    (await mcp.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolAnswer;
  const ok = async (name: string, args: Record<string, unknown>) => {
    const answer = await tool(name, args);
    assert.ok(!answer.isError && answer.structuredContent, `${name}: ${textOf(answer)}`);
    return answer.structuredContent;
  };
  /** What the sitemaps name: the home page and every article. */
  const every = () => [`${site.url}/`, ...Array.from({ length: PAGES }, (_, i) => `${site.url}/articles/${i}`)];

  before(async () => {
    site = await startTestSite({ pages: PAGES, host: '127.0.0.1', extras: false });
    await sharedFleet('browsers');
    for (const user of ['mcp', 'langchain', 'cli', 'http'] as const) keys[user] = (await fleet.workspace('pro')).apiKey;
    for (let i = 0; i < PAGES; i++)
      scripted.pages.set(`${site.url}/articles/${i}`, () => ({ title: site.article(i).title }));
    mcp = await startMcp(keys.mcp);
  });
  after(async () => {
    await mcp?.close();
    for (let i = 0; i < PAGES; i++) scripted?.pages.delete(`${site.url}/articles/${i}`);
    await site?.close();
  });

  describe('firecrawl-mcp', () => {
    test('lists the tools a self-hosted API serves', async () => {
      const { tools } = await mcp.listTools();
      const names = new Set(tools.map((t) => t.name));
      for (const name of [
        'firecrawl_scrape',
        'firecrawl_map',
        'firecrawl_crawl',
        'firecrawl_check_crawl_status',
        'firecrawl_search',
        'firecrawl_credit_usage',
      ])
        assert.ok(names.has(name), name);
    });

    test('firecrawl_scrape answers the page’s markdown, billed one credit as POST /v1/scrape', async () => {
      const before = await availableCredits(fleet.gatewayUrl, keys.mcp);
      const doc = await ok('firecrawl_scrape', { url: `${site.url}/articles/3`, formats: ['markdown', 'links'] });
      assert.ok(String(doc.markdown).includes(site.article(3).title));
      assert.ok((doc.links as string[]).some((l) => l.startsWith(`${site.url}/`)));
      assert.equal((doc.metadata as { statusCode?: number }).statusCode, 200);
      assert.equal(before - (await availableCredits(fleet.gatewayUrl, keys.mcp)), 1);
    });

    test('firecrawl_scrape with the json format, the tool’s way to extract: the model’s object', async () => {
      const doc = await ok('firecrawl_scrape', {
        url: `${site.url}/articles/5`,
        formats: ['json'],
        jsonOptions: { prompt: 'the article’s title', schema: TITLE_SCHEMA },
      });
      assert.deepEqual(doc.json, { title: site.article(5).title });
      // firecrawl-mcp 3.26 retired its extract tool in favour of this (it says so, calling nothing).
      const retired = await tool('firecrawl_extract', { urls: [`${site.url}/articles/5`], prompt: 'the title' });
      assert.ok(retired.isError);
      assert.match(textOf(retired), /firecrawl_scrape/);
    });

    test('firecrawl_scrape with the query format: the model’s answer to the question', async () => {
      const url = `${site.url}/articles/8`;
      const asked: string[] = [];
      scripted.pages.set(url, (_format, prompt) => {
        asked.push(prompt);
        return { answer: site.article(8).title };
      });
      const doc = await ok('firecrawl_scrape', {
        url,
        formats: ['query'],
        queryOptions: { prompt: 'What is the article called?' },
      });
      assert.equal(doc.answer, site.article(8).title);
      assert.equal(doc.json, undefined);
      assert.ok(asked.some((p) => p.includes('What is the article called?')));
    });

    test('firecrawl_parse reads a file of the MCP server’s disk into markdown', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'wap-fc-parse-'));
      try {
        const file = path.join(dir, 'notes.html');
        writeFileSync(file, '<html><body><h1>Harbour notes</h1><p>The pier was rebuilt.</p></body></html>');
        const out = await ok('firecrawl_parse', { filePath: file, formats: ['markdown'] });
        assert.match(String((out.data as { markdown?: string }).markdown), /# Harbour notes/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('firecrawl_map lists every page the sitemaps name', async () => {
      const out = await ok('firecrawl_map', { url: site.url });
      const urls = new Set((out.links as { url: string }[]).map((l) => l.url));
      for (const url of every()) assert.ok(urls.has(url), url);
      const ranked = await ok('firecrawl_map', { url: site.url, search: 'articles 7', limit: 2 });
      assert.equal((ranked.links as { url: string }[])[0]?.url, `${site.url}/articles/7`);
    });

    test('firecrawl_crawl waits for the crawl; firecrawl_check_crawl_status reads it by its id', async () => {
      const job = await ok('firecrawl_crawl', { url: site.url, limit: 4, pollInterval: 1 });
      assert.equal(job.status, 'completed');
      assert.equal((job.data as unknown[]).length, 4);
      assert.equal(job.creditsUsed, 4);
      const status = await ok('firecrawl_check_crawl_status', { id: job.id });
      assert.equal(status.status, 'completed');
      assert.equal(status.completed, 4);
    });

    test('firecrawl_search: without the catalogue of hosted tools it searches the web, billed as POST /v1/search', async () => {
      const article = site.article(9);
      await ok('firecrawl_scrape', { url: `${site.url}/articles/9`, formats: ['markdown'] });
      const word = article.title.split(' ').find((w) => w.length > 5) ?? article.title;
      const out = await ok('firecrawl_search', { query: word, limit: 5 });
      const web = (out.data as { web: { url: string }[] }).web;
      assert.ok(
        web.some((hit) => hit.url === `${site.url}/articles/9`),
        JSON.stringify(out),
      );
      const native = await call<{ usage: { credits: number } }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key: keys.mcp,
        body: { query: word, limit: 5 },
      });
      assert.equal(out.creditsUsed, Math.ceil(native.body.usage.credits));
    });

    test('firecrawl_credit_usage: the balance in whole credits, and the last 30 days', async () => {
      const current = await ok('firecrawl_credit_usage', {});
      assert.equal(current.remainingCredits, Math.floor(await availableCredits(fleet.gatewayUrl, keys.mcp)));
      const history = await ok('firecrawl_credit_usage', { view: 'historical' });
      const periods = history.periods as { creditsUsed: number }[];
      assert.equal(periods.length, 1);
      assert.ok((periods[0]?.creditsUsed ?? 0) >= 5, JSON.stringify(history));
    });

    test('a key we do not know: the tool fails with our message', async () => {
      const stranger = await startMcp('ock_nobody.nothing');
      try {
        const answer = (await stranger.callTool({
          name: 'firecrawl_scrape',
          arguments: { url: `${site.url}/articles/1` },
        })) as ToolAnswer;
        assert.ok(answer.isError);
        assert.ok(textOf(answer).includes(ERRORS.unauthorized.message), textOf(answer));
      } finally {
        await stranger.close();
      }
    });
  });

  describe('firecrawl-cli', () => {
    let home: string;
    before(() => {
      home = mkdtempSync(path.join(tmpdir(), 'wap-fc-cli-'));
    });
    after(() => rmSync(home, { recursive: true, force: true }));

    /** `firecrawl <args>` as a user runs it in a folder of theirs, with the two settings. */
    const cli = async (...args: string[]) => {
      const bin = createRequire(__filename).resolve('firecrawl-cli/dist/index.js');
      const { stdout } = await run(process.execPath, [bin, ...args], {
        cwd: home,
        timeout: 120_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          FIRECRAWL_API_URL: fleet.gatewayUrl,
          FIRECRAWL_API_KEY: keys.cli,
          FIRECRAWL_NO_UPDATE_CHECK: '1',
          NO_COLOR: '1',
        },
      });
      return stdout;
    };

    test('scrape, map, search and credit-usage print what the API answered', async () => {
      assert.ok((await cli('scrape', `${site.url}/articles/10`)).includes(site.article(10).title));
      const mapped = JSON.parse(await cli('map', site.url, '--json')) as { data: { links: { url: string }[] } };
      const urls = new Set(mapped.data.links.map((l) => l.url));
      for (const url of every()) assert.ok(urls.has(url), url);
      const word =
        site
          .article(10)
          .title.split(' ')
          .find((w) => w.length > 5) ?? site.article(10).title;
      const found = JSON.parse(await cli('search', word, '--json')) as { data: { web: { url: string }[] } };
      assert.ok(found.data.web.some((hit) => hit.url === `${site.url}/articles/10`));
      const usage = JSON.parse(await cli('credit-usage', '--json')) as { data: { remainingCredits: number } };
      assert.equal(usage.data.remainingCredits, Math.floor(await availableCredits(fleet.gatewayUrl, keys.cli)));
    });

    test('crawl --wait answers the pages; a started crawl’s --status, at its v2 URL', async () => {
      const job = JSON.parse(await cli('crawl', site.url, '--limit', '3', '--wait', '--poll-interval', '1')) as {
        status: string;
        data: unknown[];
      };
      assert.equal(job.status, 'completed');
      assert.equal(job.data.length, 3);
      const started = JSON.parse(await cli('crawl', site.url, '--limit', '2')) as {
        data: { jobId: string; url: string };
      };
      assert.equal(started.data.url, `${fleet.gatewayUrl}/v2/crawl/${started.data.jobId}`);
      await until('the crawl completed', async () => {
        const status = JSON.parse(await cli('crawl', started.data.jobId, '--status')) as { status: string };
        return status.status === 'completed';
      });
    });
  });

  describe('LangChain FireCrawlLoader (Python)', () => {
    interface Loaded {
      ok: boolean;
      docs?: { page_content: string; metadata: Record<string, unknown> }[];
      type?: string;
      error?: string;
    }
    /** `FireCrawlLoader(url=…, api_key=…, api_url=…, mode=…, params=…).load()`, in its own process. */
    const load = async (call: { mode: string; url?: string; query?: string; params?: Record<string, unknown> }) => {
      const { stdout } = await run(
        path.join(ROOT, '.tools/langchain-community/bin/python'),
        [path.join(ROOT, 'e2e/src/firecrawl_loaders.py'), fleet.gatewayUrl, keys.langchain, JSON.stringify(call)],
        { timeout: 120_000 },
      );
      const out = JSON.parse(stdout) as Loaded;
      assert.ok(out.ok && out.docs, stdout);
      return out.docs;
    };

    test('scrape: one document, the page’s markdown and metadata', async () => {
      const [doc, ...rest] = await load({ mode: 'scrape', url: `${site.url}/articles/2` });
      assert.equal(rest.length, 0);
      assert.ok(doc?.page_content.includes(site.article(2).title));
      assert.equal(doc?.metadata.source_url, `${site.url}/articles/2`);
      assert.equal(doc?.metadata.status_code, 200);
    });

    test('crawl: a document per page crawled', async () => {
      const docs = await load({ mode: 'crawl', url: site.url, params: { limit: 3, poll_interval: 1 } });
      assert.equal(docs.length, 3);
      assert.ok(docs.every((d) => d.page_content.length > 0));
    });

    test('map: a document per URL the sitemaps name', async () => {
      const docs = await load({ mode: 'map', url: site.url });
      const urls = new Set(docs.map((d) => d.page_content));
      for (const url of every()) assert.ok(urls.has(url), url);
    });

    test('search: the workspace’s scraped page found', async () => {
      await load({ mode: 'scrape', url: `${site.url}/articles/4` });
      const word =
        site
          .article(4)
          .title.split(' ')
          .find((w) => w.length > 5) ?? site.article(4).title;
      const docs = await load({ mode: 'search', query: word, params: { limit: 5 } });
      assert.ok(
        docs.some((d) => d.metadata.url === `${site.url}/articles/4`),
        JSON.stringify(docs),
      );
    });

    test('extract: the model’s object for the page', async () => {
      const [doc] = await load({
        mode: 'extract',
        url: `${site.url}/articles/1`,
        params: { prompt: 'the article’s title', schema: TITLE_SCHEMA, poll_interval: 1 },
      });
      assert.match(doc?.page_content ?? '', /status='completed'/);
      assert.ok(doc?.page_content.includes(site.article(1).title), doc?.page_content);
    });
  });
});
