// Firecrawl's v2 API (the default of firecrawl-py and @mendable/firecrawl-js 4.x), each route
// a thin translation onto one of our rows: its request rewritten into the row's before the
// row reads it, the row's answer rewritten into theirs (docs/migrating-from-firecrawl.md).
// The row does the work, so billing, limits, idempotency and errors are the native call's;
// on /v2 an error leaves in Firecrawl's body (http/errors.ts) and a route of theirs we do
// not have answers "not offered by this server" (http/mount.ts).
import { ApiError } from '@wap/errors';
import type { RawInput, RouteAlias, Translation } from './types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body as an object to rewrite; anything else is left for the row to refuse. */
const withBody = (input: RawInput, rewrite: (body: Json) => Json): RawInput =>
  isObject(input.body) ? { ...input, body: rewrite({ ...input.body }) } : input;

/** v2's format objects in our names: `{ type: "screenshot", fullPage }` is `screenshot@fullPage`; the json object stays. */
function formatsOf(formats: unknown): unknown {
  if (!Array.isArray(formats)) return formats;
  return formats.map((f) => {
    if (!isObject(f) || f.type !== 'screenshot') return f;
    const { type: _t, fullPage, ...rest } = f;
    // A screenshot's quality or viewport is not ours to set: left in place, refused by name.
    if (Object.keys(rest).length > 0) return f;
    return fullPage === true ? 'screenshot@fullPage' : 'screenshot';
  });
}

/**
 * Fields the clients send on every call with a value that asks nothing of us: firecrawl-py fills
 * in its defaults (`skipTlsVerification: true`, `blockAds: true`, `storeInCache: true`...).
 * Dropped when they carry one of these values; any other value stays, for the row to refuse by name.
 */
const INERT: Record<string, unknown[]> = {
  skipTlsVerification: [true, false], // we verify certificates: a page with a bad one fails (docs)
  removeBase64Images: [true, false], // our markdown never inlines images as base64
  fastMode: [false],
  blockAds: [true, false], // pages are fetched without ads' scripts unless rendered; nothing to switch
  storeInCache: [true],
  zeroDataRetention: [false],
  ignoreRobotsTxt: [false],
  deduplicateSimilarURLs: [true, false], // URLs are one page by their normalised key whatever it says (docs/crawl.md)
  regexOnFullURL: [false],
  lockdown: [false],
  enableWebSearch: [false],
  allowExternalLinks: [false], // our crawl's default; a batch follows no link
  checkPromptInjection: [false],
};

const withoutInert = (body: Json, inert = INERT): Json =>
  Object.fromEntries(Object.entries(body).filter(([k, v]) => !inert[k]?.includes(v)));

/** Scrape options in v2's form (formats as strings or objects, the clients' defaults) in ours. */
export function scrapeOptionsOf(options: Json): Json {
  const out = withoutInert(options);
  return 'formats' in out ? { ...out, formats: formatsOf(out.formats) } : out;
}

/** Regular-expression text matching `text` literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A refused field, named where the client sent it, as the row's own checks name one. */
const refuse = (path: string, message: string): never => {
  throw new ApiError('bad_request', { issues: [{ path: `body.${path}`, message }] });
};

/** The schema a `query` format's answer is asked in: one string. */
const ANSWER_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

/** The index of a free-form `{ type: "query", prompt }` format that can be answered as `json`, or -1. */
function queryFormat(formats: unknown): number {
  if (!Array.isArray(formats) || formats.some((f) => f === 'json' || (isObject(f) && f.type === 'json'))) return -1;
  return formats.findIndex(
    (f) =>
      isObject(f) &&
      f.type === 'query' &&
      typeof f.prompt === 'string' &&
      (f.mode === undefined || f.mode === 'freeform') &&
      Object.keys(f).every((k) => k === 'type' || k === 'prompt' || k === 'mode'),
  );
}

/**
 * v2's scrape. The `query` format (a question about the page, answered in `answer`; what
 * firecrawl-mcp and firecrawl-aisdk tell their models to ask first) is our `json` format with
 * a one-string schema, its answer moved to `answer`. Its `directQuote` mode, or a query beside
 * a `json` format, stays as sent, for the row to refuse by name.
 */
const scrape: Translation = {
  request: (input) =>
    withBody(input, (sent) => {
      const body = scrapeOptionsOf(sent);
      const at = queryFormat(body.formats);
      if (at < 0 || !Array.isArray(body.formats)) return body;
      const { prompt } = body.formats[at] as Json;
      const json = { type: 'json', prompt: `Answer this question about the page: ${prompt}`, schema: ANSWER_SCHEMA };
      return { ...body, formats: body.formats.map((f, i) => (i === at ? json : f)) };
    }),
  response: (body, sent) => {
    // The formats as sent: the rewriting above touches neither a query nor a json format.
    const asked = isObject(sent.body) ? queryFormat(sent.body.formats) : -1;
    if (asked < 0 || !isObject(body) || !isObject(body.data)) return body;
    const { json, ...data } = body.data;
    const answer = isObject(json) && typeof json.answer === 'string' ? json.answer : undefined;
    return { ...body, data: { ...data, ...(answer !== undefined && { answer }) } };
  },
};

/** A start's `url`, where the job answers, on /v2 as Firecrawl's v2 answers it (firecrawl-cli prints it). */
const v2JobUrl = (from: string, to: string) => (body: unknown) =>
  isObject(body) && typeof body.url === 'string' ? { ...body, url: body.url.replace(from, to) } : body;

/**
 * v2's crawl request in ours: `maxDiscoveryDepth` is our `maxDepth`; without
 * `crawlEntireDomain` Firecrawl keeps to the paths under the start URL's, which is our
 * `includePaths` of that prefix (we crawl the whole site otherwise).
 */
const crawlStart: Translation = {
  request: (input) =>
    withBody(input, (sent) => {
      const { maxDiscoveryDepth, crawlEntireDomain, scrapeOptions, ...body } = withoutInert(sent);
      const path = typeof body.url === 'string' && URL.canParse(body.url) ? new URL(body.url).pathname : '/';
      const underStart = crawlEntireDomain !== true && path !== '/' && body.includePaths === undefined;
      return {
        ...body,
        ...(underStart && { includePaths: [`^${literal(path.replace(/\/+$/, ''))}`] }),
        ...(maxDiscoveryDepth !== undefined && { maxDepth: maxDiscoveryDepth }),
        ...(isObject(scrapeOptions) && { scrapeOptions: scrapeOptionsOf(scrapeOptions) }),
      };
    }),
  response: v2JobUrl('/v1/crawl/', '/v2/crawl/'),
};

/** `next` on /v2 points at /v2, where the client's next poll gets v2's errors. */
const v2Next = (prefix: string): Translation => ({
  response: (body) => {
    if (!isObject(body) || typeof body.next !== 'string') return body;
    return { ...body, next: body.next.replace('/v1/crawl/', prefix) };
  },
});

/**
 * A crawl's failures as v2's errors: `{ errors: [{ id, url, code, error }], robotsBlocked }`.
 * A page robots.txt forbids is skipped, not failed, so `robotsBlocked` stays empty (the start
 * page forbidden is a failure with its reason).
 */
const errors: Translation = {
  response: (body) => {
    const crawl = isObject(body) && isObject(body.crawl) ? body.crawl : {};
    const failures = Array.isArray(crawl.failures) ? crawl.failures.filter(isObject) : [];
    return {
      success: true,
      errors: failures.map((f, i) => ({
        id: String(i),
        url: f.url,
        code: f.code,
        error: isObject(f.details) && typeof f.details.reason === 'string' ? `${f.code}: ${f.details.reason}` : f.code,
      })),
      robotsBlocked: [],
    };
  },
};

/** v2's batch request: the scrape options and the webhook at its top level, as ours. */
const batchStart: Translation = {
  request: (input) => withBody(input, scrapeOptionsOf),
  response: v2JobUrl('/v1/batch/scrape/', '/v2/batch/scrape/'),
};

/** The most pages one extract reads: its answer is merged from one status read of the batch. */
export const MAX_EXTRACT_URLS = 100;

/**
 * v2's extract is a batch scrape of its pages with the `json` format (its prompt, schema
 * and system prompt), each page billed as a scrape with its tokens; the status merges the
 * pages' answers into one object. Patterns (`https://site/*`), web search and sources are
 * not offered: list the pages (map finds them).
 */
const extractStart: Translation = {
  request: (input) =>
    withBody(input, (sent) => {
      const { urls, prompt, schema, systemPrompt, scrapeOptions, ...body } = withoutInert(sent);
      // The batch's events are not an extract's (`extract.completed`): refused rather than sent in the wrong shape.
      if (body.webhook !== undefined) refuse('webhook', 'not offered by this server on extract: poll its status');
      if (Array.isArray(urls)) {
        const pattern = urls.findIndex((u) => typeof u === 'string' && u.includes('*'));
        if (pattern >= 0) refuse(`urls.${pattern}`, 'patterns are not offered by this server: list the pages');
        if (urls.length > MAX_EXTRACT_URLS) refuse('urls', `at most ${MAX_EXTRACT_URLS} pages`);
      }
      const json = { type: 'json', ...(schema !== undefined && { schema }), ...(prompt !== undefined && { prompt }) };
      return {
        ...body,
        urls,
        ...scrapeOptionsOf(isObject(scrapeOptions) ? scrapeOptions : {}),
        formats: [json],
        ...(systemPrompt !== undefined && { jsonOptions: { systemPrompt } }),
      };
    }),
  response: (body) => ({ success: true, id: isObject(body) ? body.id : undefined }),
};

const EXTRACT_STATUS: Record<string, string> = { scraping: 'processing' };

/**
 * One object from the pages' `json`: for each field the first page's value that is not
 * null; arrays joined, each item once. Null when no page answered.
 */
export function mergeAnswers(answers: unknown[]): Json | null {
  const objects = answers.filter(isObject);
  if (objects.length === 0) return null;
  const out: Json = {};
  for (const o of objects)
    for (const [k, v] of Object.entries(o)) {
      const cur = out[k];
      if (cur === undefined || cur === null) out[k] = v ?? null;
      else if (Array.isArray(cur) && Array.isArray(v)) {
        const seen = new Set(cur.map((x) => JSON.stringify(x)));
        out[k] = [...cur, ...v.filter((x) => !seen.has(JSON.stringify(x)))];
      }
    }
  return out;
}

/** The batch's state as v2's extract status: `processing`, then the pages' answers merged. */
const extractStatus: Translation = {
  response: (body) => {
    const b = isObject(body) ? body : {};
    const status = typeof b.status === 'string' ? (EXTRACT_STATUS[b.status] ?? b.status) : 'processing';
    const pages = Array.isArray(b.data) ? b.data.filter(isObject) : [];
    const data = mergeAnswers(pages.map((p) => p.json));
    const unanswered = pages.filter((p) => p.json === undefined).map((p) => p.url ?? '');
    const done = status === 'completed';
    const failed = done && data === null;
    return {
      success: true,
      id: isObject(b.crawl) ? b.crawl.id : undefined,
      status: failed ? 'failed' : status,
      ...(done && !failed && { data }),
      ...(failed && { error: 'No page answered the json format (each page’s error is in its scrape).' }),
      ...(done && !failed && unanswered.length > 0 && { warning: `Not answered: ${unanswered.join(', ')}` }),
      creditsUsed: Math.ceil(Number(b.creditsUsed ?? 0)),
      expiresAt: b.expiresAt,
    };
  },
};

/** Parse options firecrawl-py sends with a value that asks nothing of a file, by name. */
const PARSE_INERT: Record<string, unknown[]> = { proxy: [undefined, 'auto', 'basic'], mobile: [false], waitFor: [0] };

/**
 * v2's parse: the clients' multipart `options` part holds the scrape options (read as the
 * row's `body` part, RouteAlias.bodyPart); firecrawl-py fills in `mobile: false` among its
 * defaults, and a `proxy` of `auto` or `basic` asks nothing of a file.
 */
const parse: Translation = {
  request: (input) => withBody(input, (body) => scrapeOptionsOf(withoutInert(body, PARSE_INERT))),
  // Firecrawl's fields alone: firecrawl-mcp's parse tool checks the answer against a schema allowing no other.
  response: (body) => (isObject(body) ? { success: body.success, data: body.data } : body),
};

/** The kinds parse reads, under v2's `data`. */
const parseFormats: Translation = {
  response: (body) => ({ success: true, data: { formats: isObject(body) ? body.formats : [] } }),
};

/**
 * Search options of Firecrawl's catalogue of hosted tools (firecrawl-mcp sends them on every
 * search): they shape tools answered beside the hits, and we answer none.
 */
const SEARCH_INERT: Record<string, unknown[]> = {
  domainTools: [false],
  toolDetail: ['compact', 'summary', 'full'],
};

/**
 * Firecrawl's catalogue of hosted tools (`alexandria`) is not offered. firecrawl-mcp's search
 * asks for it unless told otherwise, and on Firecrawl's own answer for a team without it (403,
 * this `error`) searches the web alone, so that is the answer, naming the field.
 */
const noCatalogue = (path: string): never => {
  throw new ApiError('plan_required', {
    issues: [{ path: `body.${path}`, message: 'the catalogue of hosted tools is not offered by this server' }],
    firecrawlError: 'Exchange is not enabled for this team.',
  });
};

/**
 * v2's search: web results only, answered as Firecrawl's body: the hits grouped by source
 * (`data.web`) and `creditsUsed` a whole number. Nothing else at the top: firecrawl-mcp checks
 * the answer against a schema that allows no other field.
 */
const search: Translation = {
  request: (input) =>
    withBody(input, (sent) => {
      const { sources, ignoreInvalidURLs: _i, scrapeOptions, ...body } = withoutInert(sent, SEARCH_INERT);
      const names = Array.isArray(sources) ? sources.map((s) => (isObject(s) ? s.type : s)) : [];
      const catalogue = names.findIndex((s) => s === 'alexandria' || s === 'exchange');
      if (catalogue >= 0 || body.domainTools === true)
        noCatalogue(catalogue >= 0 ? `sources.${catalogue}` : 'domainTools');
      const other = names.findIndex((s) => s !== 'web');
      if (other >= 0) refuse(`sources.${other}`, 'only `web` is offered by this server');
      return { ...body, ...(isObject(scrapeOptions) && { scrapeOptions: scrapeOptionsOf(scrapeOptions) }) };
    }),
  response: (body) => {
    if (!isObject(body)) return body;
    const usage = isObject(body.usage) ? body.usage : {};
    return { success: true, data: { web: body.data }, creditsUsed: Math.ceil(Number(usage.credits ?? 0)) };
  },
};

/** Our balance in v2's words: credits as integers (theirs are), the plan's allowance and when it resets. */
const creditUsage: Translation = {
  response: (body) => {
    const c = isObject(body) ? body : {};
    const allowance = isObject(c.allowance) ? c.allowance : {};
    return {
      success: true,
      data: {
        remainingCredits: Math.floor(Number(c.available ?? 0)),
        planCredits: Math.floor(Number(allowance.credits ?? 0)),
        billingPeriodStart: null,
        billingPeriodEnd: allowance.resetsAt ?? null,
      },
    };
  },
};

const v2 = (
  method: RouteAlias['method'],
  path: `/v2/${string}`,
  description: string,
  translate: Translation = {},
  operationId?: string,
): RouteAlias => ({ method, path, description: `Firecrawl v2: ${description}`, translate, operationId });

/** The running crawls as v2's active crawls: `{ id, teamId, url }` each (the options are ours: GET /v1/crawl has them). */
const activeCrawls: Translation = {
  response: (body) => {
    const b = isObject(body) ? body : {};
    const crawls = Array.isArray(b.crawls) ? b.crawls.filter(isObject) : [];
    return { success: true, crawls: crawls.map((c) => ({ id: c.id, teamId: b.workspaceId, url: c.url })) };
  },
};

/**
 * Our usage of the last 30 days as v2's historical usage: one period, the credits (or the
 * model's tokens) spent in it. Per API key is not offered (`byApiKey=true` refused by name).
 */
const historical = (field: 'creditsUsed' | 'tokensUsed'): Translation => ({
  request: (input) => {
    const { byApiKey, ...query } = input.query;
    if (byApiKey !== undefined && byApiKey !== 'false')
      throw new ApiError('bad_request', {
        issues: [{ path: 'query.byApiKey', message: 'usage per API key is not offered by this server' }],
      });
    return { ...input, query };
  },
  response: (body) => {
    const b = isObject(body) ? body : {};
    const total = isObject(b.total) ? b.total : {};
    const meters = isObject(total.meters) ? total.meters : {};
    const used = field === 'creditsUsed' ? Number(total.credits ?? 0) : Number(meters.tokens ?? 0);
    return { success: true, periods: [{ startDate: b.from, endDate: b.to, [field]: Math.ceil(used) }] };
  },
});

/** The v2 routes of each row, by the row's name. */
export const FIRECRAWL_V2: Record<string, RouteAlias[]> = {
  scrape: [v2('post', '/v2/scrape', '`scrape`; formats as strings or objects.', scrape)],
  crawl: [v2('post', '/v2/crawl', '`startCrawl`, `crawl`.', crawlStart)],
  'crawl.list': [v2('get', '/v2/crawl/active', '`getActiveCrawls`.', activeCrawls)],
  'crawl.get': [
    v2('get', '/v2/crawl/{id}', '`getCrawlStatus`, `crawl` polling.', v2Next('/v2/crawl/'), 'crawl.get.v2'),
    v2('get', '/v2/crawl/{id}/errors', '`getCrawlErrors`.', errors, 'crawl.get.v2.errors'),
    v2('get', '/v2/batch/scrape/{id}', '`getBatchScrapeStatus`.', v2Next('/v2/batch/scrape/'), 'crawl.get.v2.batch'),
    v2('get', '/v2/batch/scrape/{id}/errors', '`getBatchScrapeErrors`.', errors, 'crawl.get.v2.batch.errors'),
    v2('get', '/v2/extract/{id}', '`getExtractStatus`, `extract` polling.', extractStatus, 'crawl.get.v2.extract'),
  ],
  'crawl.cancel': [
    v2('delete', '/v2/crawl/{id}', '`cancelCrawl`.', {}, 'crawl.cancel.v2'),
    v2('delete', '/v2/batch/scrape/{id}', '`cancelBatchScrape`.', {}, 'crawl.cancel.v2.batch'),
  ],
  map: [v2('post', '/v2/map', '`map`.')],
  parse: [
    { ...v2('post', '/v2/parse', '`parse`: the file and its `options` as multipart.', parse), bodyPart: 'options' },
  ],
  'parse.formats': [v2('get', '/v2/parse/formats', '`get_parse_formats` (Python).', parseFormats)],
  'batch.scrape': [
    v2('post', '/v2/batch/scrape', '`startBatchScrape`, `batchScrape`.', batchStart),
    v2(
      'post',
      '/v2/extract',
      '`startExtract`, `extract`: a batch scrape with the json format.',
      extractStart,
      'batch.scrape.v2.extract',
    ),
  ],
  search: [v2('post', '/v2/search', '`search` (web results).', search)],
  credits: [v2('get', '/v2/team/credit-usage', '`getCreditUsage`.', creditUsage)],
  usage: [
    v2('get', '/v2/team/credit-usage/historical', '`getCreditUsageHistorical`.', historical('creditsUsed')),
    v2(
      'get',
      '/v2/team/token-usage/historical',
      '`getTokenUsageHistorical`.',
      historical('tokensUsed'),
      'usage.get.v2.tokens',
    ),
  ],
};

/** Routes of Firecrawl's v2 clients that would otherwise reach one of the rows above by their path. */
export const FIRECRAWL_V2_NOT_OFFERED: { method: RouteAlias['method']; path: `/v2/${string}` }[] = [
  { method: 'post', path: '/v2/crawl/params-preview' },
];
