// The model formats of a page (`json`, `summary`), asked of the agent service,
// which holds the deployment's models (decision 0021): the embedded model
// stays one per agent replica, and a scrape's model is chosen as a run's is.
import { ApiError } from '@wap/errors';
import { crawl, extract } from '@wap/proto';
import { type Closable, createClient, type ServiceClient } from '@wap/rpc';

export type ExtractClient = ServiceClient<(typeof extract.ExtractService)['method']> & Closable;

/** The agent's own EXTRACT_TIMEOUT ends a slow model first; this only bounds a lost call. */
const CALL_TIMEOUT_MS = 11 * 60_000;

const MODEL_FORMATS = new Set([crawl.Format.JSON, crawl.Format.SUMMARY]);

/**
 * The most of a page's markdown sent (characters): one gRPC message (16 MiB; this is 8 MB at most), far past any model's
 * budget (the agent keeps the relevant parts of what it gets); a longer page loses its end.
 */
const MAX_MARKDOWN_CHARS = 2_000_000;

export const isModelFormat = (format: crawl.Format) => MODEL_FORMATS.has(format);

export function modelFormatsClient(address: string | undefined, token: string): ExtractClient | undefined {
  return address
    ? createClient(extract.ExtractService, address, { defaultTimeoutMs: CALL_TIMEOUT_MS, token })
    : undefined;
}

/** What the page answered for the model formats asked. */
export interface ModelAnswer {
  json?: extract.ExtractResponse['json'];
  summary: string;
  failures: extract.FormatFailure[];
  tokens: bigint;
}

/** The Extract request of `formats` over a page; undefined when none of them is a model format. */
function requestOf(
  workspaceId: string,
  formats: readonly crawl.Format[],
  options: crawl.ScrapeOptions,
): extract.ExtractRequest | undefined {
  const json = formats.includes(crawl.Format.JSON);
  const summary = formats.includes(crawl.Format.SUMMARY);
  if (!json && !summary) return undefined;
  return {
    $typeName: 'wap.agent.v1.ExtractRequest',
    workspaceId,
    model: options.model,
    url: '',
    title: '',
    markdown: '',
    facts: '',
    json: json
      ? (options.jsonOptions ?? { $typeName: 'wap.agent.v1.JsonOptions', schemaJson: '', prompt: '', systemPrompt: '' })
      : undefined,
    summary,
    timeoutMs: 0,
    checkOnly: false,
  };
}

const unavailable = () => new ApiError('capability_unavailable', { capability: 'scrape.json' });

/** bad_request for a model or schema the agent service cannot use, before any page is loaded. */
export async function checkModelFormats(
  client: ExtractClient | undefined,
  workspaceId: string,
  formats: readonly crawl.Format[],
  options: crawl.ScrapeOptions,
  signal?: AbortSignal,
): Promise<void> {
  const request = requestOf(workspaceId, formats, options);
  if (!request) return;
  if (!client) throw unavailable();
  await client.extract({ ...request, checkOnly: true }, { timeoutMs: 10_000, signal });
}

/** The model formats asked, answered over the page's markdown; undefined when none was asked. */
export async function answerModelFormats(
  client: ExtractClient | undefined,
  workspaceId: string,
  formats: readonly crawl.Format[],
  options: crawl.ScrapeOptions,
  page: { url: string; title: string; markdown: string; facts: string },
  signal?: AbortSignal,
): Promise<ModelAnswer | undefined> {
  const request = requestOf(workspaceId, formats, options);
  if (!request) return undefined;
  if (!client) throw unavailable();
  const answer = await client.extract(
    { ...request, ...page, markdown: page.markdown.slice(0, MAX_MARKDOWN_CHARS) },
    { signal },
  );
  return { json: answer.json, summary: answer.summary, failures: answer.failures, tokens: answer.tokens };
}
