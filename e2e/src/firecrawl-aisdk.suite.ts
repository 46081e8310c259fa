// firecrawl-aisdk, Firecrawl's tools for the Vercel AI SDK, pointed at the fleet by the settings
// its users set, FIRECRAWL_API_URL and FIRECRAWL_API_KEY (its poll, status and cancel tools read
// nothing else), and driven as an app drives them: `generateText` with `FirecrawlTools()`, a
// model calling the tools (a scripted stand-in of the model, the one third party here) and the AI
// SDK running each call through the tool's schema. Batch scrape, crawl and its poll, map,
// search and scrape, against a local site with a robots.txt and sitemaps
// (docs/migrating-from-firecrawl.md, "Tools built on Firecrawl").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

const PAGES = 8;

describe('firecrawl-aisdk', () => {
  let site: TestSite;
  let key: string;
  const saved = { url: process.env.FIRECRAWL_API_URL, key: process.env.FIRECRAWL_API_KEY };

  before(async () => {
    site = await startTestSite({ pages: PAGES, host: '127.0.0.1', extras: false });
    await sharedFleet('browsers');
    ({ apiKey: key } = await fleet.workspace('pro'));
    process.env.FIRECRAWL_API_URL = fleet.gatewayUrl;
    process.env.FIRECRAWL_API_KEY = key;
  });
  after(async () => {
    for (const [name, value] of [
      ['FIRECRAWL_API_URL', saved.url],
      ['FIRECRAWL_API_KEY', saved.key],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    await site?.close();
  });

  /**
   * One turn of an app: the model calls `name` with `input`, the AI SDK runs the tool, the model
   * then answers. The tool's output, or the error the SDK recorded for it.
   */
  async function callTool(name: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { generateText, stepCountIs } = await import('ai');
    type ToolSet = Parameters<typeof generateText>[0]['tools'];
    const { MockLanguageModelV3 } = await import('ai/test');
    const { FirecrawlTools } = await import('firecrawl-aisdk');
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    let turn = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () =>
        turn++ === 0
          ? {
              content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: name, input: JSON.stringify(input) }],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage,
              warnings: [],
            },
    } as ConstructorParameters<typeof MockLanguageModelV3>[0]);
    // Every tool it has but interact (a live browser session of Firecrawl's, not offered here).
    const tools = FirecrawlTools({ all: true, interact: false }) as unknown as ToolSet;
    const result = await generateText({ model, tools, prompt: 'use the tool', stopWhen: stepCountIs(2) });
    const step = result.steps[0];
    const error = step?.content.find((c) => c.type === 'tool-error');
    assert.ok(!error, `${name}: ${error && 'error' in error ? String(error.error) : ''}`);
    const output = step?.toolResults[0]?.output;
    assert.ok(output && typeof output === 'object', `${name} answered nothing`);
    return output as Record<string, unknown>;
  }

  test('batchScrape scrapes each page, billed a credit a page', async () => {
    const urls = [1, 2, 3].map((i) => `${site.url}/articles/${i}`);
    const before = await availableCredits(fleet.gatewayUrl, key);
    const job = await callTool('batchScrape', { urls, formats: ['markdown'] });
    assert.equal(job.status, 'completed');
    const titles = (job.data as { metadata?: { title?: string } }[]).map((d) => d.metadata?.title).sort();
    assert.deepEqual(titles, [1, 2, 3].map((i) => site.article(i).title).sort());
    assert.equal(job.creditsUsed, 3);
    assert.equal(before - (await availableCredits(fleet.gatewayUrl, key)), 3);
  });

  test('crawl starts a crawl; poll waits for it and answers its pages', async () => {
    const started = await callTool('crawl', { url: site.url, limit: 3 });
    assert.equal(typeof started.id, 'string');
    const done = await callTool('poll', { jobId: started.id, jobType: 'crawl', pollInterval: 1 });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal((done.data as unknown[]).length, 3);
    const status = await callTool('status', { id: started.id, jobType: 'crawl' });
    assert.equal(status.status, 'completed', JSON.stringify(status).slice(0, 300));
  });

  test('cancel stops a running batch scrape', async () => {
    const slow = await startTestSite({ pages: 20, host: '127.0.0.1', extras: false, latencyMs: 400 });
    try {
      const urls = Array.from({ length: 20 }, (_, i) => `${slow.url}/articles/${i}`);
      // Its batchScrape tool waits for the end; an app starts one with firecrawl-js (the same
      // settings), then cancels it by the tool.
      const Firecrawl = (await import('@mendable/firecrawl-js')).default;
      const started = await new Firecrawl().startBatchScrape(urls, { options: { formats: ['markdown'] } });
      const out = await callTool('cancel', { jobId: started.id, jobType: 'batchScrape' });
      assert.equal(out.success, true, JSON.stringify(out));
      assert.equal((await new Firecrawl().getBatchScrapeStatus(started.id)).status, 'cancelled');
    } finally {
      await slow.close();
    }
  });

  test('map, scrape and search', async () => {
    const mapped = await callTool('map', { url: site.url });
    const urls = new Set((mapped.links as { url: string }[]).map((l) => l.url));
    for (let i = 0; i < PAGES; i++) assert.ok(urls.has(`${site.url}/articles/${i}`), `article ${i}`);
    const page = await callTool('scrape', { url: `${site.url}/articles/6`, formats: ['markdown'] });
    assert.ok(String(page.markdown).includes(site.article(6).title), JSON.stringify(page).slice(0, 300));
    const word =
      site
        .article(6)
        .title.split(' ')
        .find((w) => w.length > 5) ?? site.article(6).title;
    const found = await callTool('search', { query: word, limit: 5 });
    assert.ok(
      (found.web as { url: string }[] | undefined)?.some((hit) => hit.url === `${site.url}/articles/6`),
      JSON.stringify(found).slice(0, 500),
    );
  });
});
