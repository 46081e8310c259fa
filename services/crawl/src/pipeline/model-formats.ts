// A loaded page's model formats put on its document: `json` and `summary`
// from the agent service's models, over the page's markdown and what it states
// beside it (page-facts.ts). A format the
// model did not answer is a failure on the document and the other formats
// stand; only a page asked for model formats alone, none answered, fails as a
// whole (and so is not billed).
import { ApiError, type ErrorCode, isErrorCode } from '@wap/errors';
import { crawl } from '@wap/proto';
import { answerModelFormats, type ExtractClient, isModelFormat } from '../clients/model-formats.js';
import { pageFacts, wantsWholeText } from './page-facts.js';
import { analyseOff, formatsOf, type LoadedPage, type PipelineDeps } from './scrape.js';

export interface ModelFormatsDeps extends Pick<PipelineDeps, 'extractor'> {
  /** The agent service's Extract; without it a model format is capability_unavailable. */
  modelFormats?: ExtractClient;
}

/** The page's facts for the model: its metadata, JSON-LD and the labelled lines its main content left out. */
async function factsOf(deps: ModelFormatsDeps, { page, extracted }: LoadedPage, options: crawl.ScrapeOptions) {
  const html = page.document || page.rawBase64 ? undefined : page.html;
  if (!html) return pageFacts(extracted, undefined, undefined);
  const whole = wantsWholeText(options)
    ? await analyseOff(
        deps,
        page,
        { ...options, formats: [crawl.Format.TEXT], onlyMainContent: false, includeTags: [] } as crawl.ScrapeOptions,
        false,
      )
    : undefined;
  return pageFacts(extracted, html, whole?.text);
}

/**
 * Answers the model formats `options` asks on `document` (its json, summary and failures), from
 * the loaded page; the tokens the model spent, 0n when none was asked.
 */
export async function addModelFormats(
  deps: ModelFormatsDeps,
  workspaceId: string,
  document: crawl.Document,
  loaded: LoadedPage,
  options: crawl.ScrapeOptions,
  signal?: AbortSignal,
): Promise<bigint> {
  const formats = formatsOf(options);
  if (!formats.some(isModelFormat)) return 0n;
  const title = typeof document.metadata?.title === 'string' ? document.metadata.title : '';
  const facts = await factsOf(deps, loaded, options);
  const answer = await answerModelFormats(
    deps.modelFormats,
    workspaceId,
    formats,
    options,
    { url: document.url, title, markdown: loaded.extracted.markdown, facts },
    signal,
  );
  if (!answer) return 0n;
  if (answer.json) document.json = answer.json;
  document.summary = answer.summary;
  document.formatFailures = answer.failures;
  const asked = formats.filter((f) => f !== crawl.Format.METADATA);
  // Asked for nothing the model did not fail: the page answers the first failure, unbilled.
  if (asked.every(isModelFormat) && answer.failures.length >= asked.length) throw failureError(answer.failures[0]);
  return answer.tokens;
}

function failureError(failure: crawl.Document['formatFailures'][number] | undefined): ApiError {
  const code: ErrorCode = failure && isErrorCode(failure.code) ? failure.code : 'extraction_failed';
  return new ApiError(code, failure?.details ?? { issues: [] });
}
