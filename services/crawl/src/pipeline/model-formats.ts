// A loaded page's model formats put on its document: `json` and `summary`
// from the agent service's models, over the page's markdown. A format the
// model did not answer is a failure on the document and the other formats
// stand; only a page asked for model formats alone, none answered, fails as a
// whole (and so is not billed).
import { ApiError, type ErrorCode, isErrorCode } from '@wap/errors';
import { crawl } from '@wap/proto';
import { answerModelFormats, type ExtractClient, isModelFormat } from '../clients/model-formats.js';
import { formatsOf } from './scrape.js';

export interface ModelFormatsDeps {
  /** The agent service's Extract; without it a model format is capability_unavailable. */
  modelFormats?: ExtractClient;
}

/**
 * Answers the model formats `options` asks on `document` (its json, summary and failures), from
 * `markdown`; the tokens the model spent, 0n when none was asked.
 */
export async function addModelFormats(
  deps: ModelFormatsDeps,
  workspaceId: string,
  document: crawl.Document,
  markdown: string,
  options: crawl.ScrapeOptions,
  signal?: AbortSignal,
): Promise<bigint> {
  const formats = formatsOf(options);
  const title = typeof document.metadata?.title === 'string' ? document.metadata.title : '';
  const answer = await answerModelFormats(
    deps.modelFormats,
    workspaceId,
    formats,
    options,
    { url: document.url, title, markdown },
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
