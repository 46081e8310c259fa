import { create, type JsonObject } from '@bufbuild/protobuf';
import { ERRORS } from '@wap/errors';
import { extract } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import {
  CHARS_PER_TOKEN,
  checkJson,
  type Issue,
  type JsonAsk,
  jsonStep,
  type PageForModel,
  summaryOf,
  summaryStep,
} from '../domain/extract.js';
import { type ModelClient, ModelError, type StepRequest, type StepResult } from '../model/types.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid, parseOutputSchema } from './parse.js';

/** The most characters of a page put to Extract: 4 MB of markdown is past any budget. */
export const MAX_PAGE_CHARS = 4_000_000;
const MAX_PROMPT_CHARS = 10_000;

type Format = 'json' | 'summary';
type Failure = extract.FormatFailure;
type Outcome = { format: Format; result?: StepResult; failure?: Failure };

export type ExtractDeps = Pick<AgentRpcDeps, 'config' | 'models' | 'model' | 'log'>;

/**
 * agent.Extract: a scraped page's model formats from the model a run would
 * get. The options are checked first (bad_request naming the field); each
 * format is then one model call, and a format the model does not answer in
 * time, or answers outside its schema, is a failure in the answer while the
 * other is still answered.
 */
export function extractFormats(deps: ExtractDeps) {
  return async (req: extract.ExtractRequest, ctx?: Pick<CallContext, 'signal'>): Promise<extract.ExtractResponse> => {
    const { client, ask } = parseExtract(deps, req);
    const answer = create(extract.ExtractResponseSchema, {});
    if (req.checkOnly || (!ask && !req.summary)) return answer;
    if (req.markdown.length > MAX_PAGE_CHARS) invalid('markdown', `longer than ${MAX_PAGE_CHARS} characters`);

    const timeoutMs =
      req.timeoutMs > 0 ? Math.min(req.timeoutMs, deps.config.EXTRACT_TIMEOUT) : deps.config.EXTRACT_TIMEOUT;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = ctx?.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    const tokens =
      client.profile === 'compact' ? deps.config.EXTRACT_COMPACT_PAGE_TOKENS : deps.config.EXTRACT_PAGE_TOKENS;
    const page: PageForModel = { url: req.url, title: req.title, markdown: req.markdown, facts: req.facts };
    const maxChars = tokens * CHARS_PER_TOKEN;

    const asked: [Format, StepRequest][] = [
      ...(ask ? [['json', jsonStep(page, ask, maxChars)] as [Format, StepRequest]] : []),
      ...(req.summary ? [['summary', summaryStep(page, maxChars)] as [Format, StepRequest]] : []),
    ];
    const outcomes = await Promise.all(
      asked.map(([format, step]) => callModel(client, format, { ...step, signal }, () => timeout.aborted, timeoutMs)),
    );
    for (const outcome of outcomes) {
      const { format, result } = outcome;
      if (result) {
        answer.tokens += BigInt(result.usage.inputTokens + result.usage.outputTokens);
        answer.model ||= result.model;
      }
      if (outcome.failure) {
        answer.failures.push(outcome.failure);
        continue;
      }
      if (format === 'json') {
        const issues = checkJson(ask?.schema, result?.output);
        if (issues.length > 0) answer.failures.push(failed(format, 'schema', issues));
        else answer.json = result?.output as JsonObject;
      } else {
        const summary = summaryOf(result?.output);
        if (summary) answer.summary = summary;
        else answer.failures.push(failed(format, 'invalid_output', [{ path: 'summary', message: 'empty' }]));
      }
    }
    if (answer.failures.length > 0)
      deps.log.info(
        { url: req.url, model: client.name, failures: answer.failures.map((f) => `${f.format}:${f.code}`) },
        'model formats not all answered',
      );
    return answer;
  };
}

/** The model and the `json` ask, checked: bad_request for a model the deployment lacks or a schema no model can answer in. */
function parseExtract(deps: ExtractDeps, req: extract.ExtractRequest): { client: ModelClient; ask?: JsonAsk } {
  if (!req.workspaceId) invalid('workspaceId', 'required');
  const name = req.model || deps.config.AGENT_DEFAULT_MODEL;
  const client = deps.models().includes(name) ? deps.model(name) : undefined;
  if (!client) invalid('model', `not a model of this deployment (${deps.models().join(', ') || 'none configured'})`);
  if (!req.json) return { client };
  const { schemaJson, prompt, systemPrompt } = req.json;
  const schema = parseOutputSchema(schemaJson, 'jsonOptions.schema');
  if (schema && schema.type !== 'object')
    invalid('jsonOptions.schema', 'an object schema: `"type": "object"` at its root');
  if (prompt.length > MAX_PROMPT_CHARS) invalid('jsonOptions.prompt', `longer than ${MAX_PROMPT_CHARS} characters`);
  if (systemPrompt.length > MAX_PROMPT_CHARS)
    invalid('jsonOptions.systemPrompt', `longer than ${MAX_PROMPT_CHARS} characters`);
  if (!schema && !prompt.trim()) invalid('jsonOptions', 'a schema or a prompt');
  return {
    client,
    ask: { ...(schema && { schema }), ...(prompt && { prompt }), ...(systemPrompt && { systemPrompt }) },
  };
}

/** One format's model call; what went wrong becomes the format's failure, never the whole call's error. */
async function callModel(
  client: ModelClient,
  format: Format,
  step: StepRequest,
  timedOut: () => boolean,
  timeoutMs: number,
): Promise<Outcome> {
  const ready = client.ready?.();
  if (ready && !ready.ready) return { format, failure: unavailable(format, undefined) };
  try {
    return { format, result: await client.step(step) };
  } catch (err) {
    if (timedOut())
      return {
        format,
        failure: failed(format, 'timeout', [{ path: '', message: `no answer within ${timeoutMs} ms` }]),
      };
    if (!(err instanceof ModelError)) throw err;
    if (err.retryable) return { format, failure: unavailable(format, err.retryAfterMs) };
    if (err.kind === 'aborted') throw err;
    const reason = err.kind === 'bad_output' ? 'invalid_output' : 'model_error';
    // The message names the model and its own words, never a key (retry.ts redacts them).
    return { format, failure: failed(format, reason, [{ path: '', message: err.message.slice(0, 300) }]) };
  }
}

function failed(
  format: Format,
  reason: 'timeout' | 'schema' | 'invalid_output' | 'model_error',
  issues: Issue[],
): Failure {
  const details = ERRORS.extraction_failed.details.parse({ format, reason, issues }) as JsonObject;
  return create(extract.FormatFailureSchema, { format, code: 'extraction_failed', details });
}

function unavailable(format: Format, retryAfterMs: number | undefined): Failure {
  const details: JsonObject = retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) };
  return create(extract.FormatFailureSchema, { format, code: 'decode_unavailable', details });
}
