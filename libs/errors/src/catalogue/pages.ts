import { z } from 'zod';
import type { CodesOf } from '../codes.js';
import { GRPC_STATUS as G } from '../grpc-status.js';
import { issueList } from './shared.js';
import type { Entries } from './spec.js';

/**
 * A target site failing is answered 422, not 502: the platform worked, the
 * page did not, and 5xx stays reserved for our own faults (alerts, SLOs and
 * client retry policies key on it).
 */
export const pages: Entries<CodesOf<'Pages and extraction'>> = {
  page_unreachable: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The target page could not be reached.',
    when: "Fetching the URL failed before a usable response: DNS, connection, TLS, the site's own timeout, an error status, or the site blocking access.",
    details: z.strictObject({
      url: z.url(),
      reason: z
        .enum([
          'dns',
          'connect',
          'tls',
          'timeout',
          'http_status',
          'blocked',
          'private_address',
          'too_large',
          'too_many_redirects',
        ])
        .describe(
          "`blocked`: the site refused access (a crawl's start page its robots.txt forbids is never fetched: blocked too); `private_address`: the URL or a redirect leads to a loopback, private, link-local or metadata address, which is never fetched.",
        ),
      status: z
        .int()
        .nonnegative()
        .describe("The site's HTTP status, when reason is http_status (or a challenge page's, with captcha).")
        .optional(),
      captcha: z
        .string()
        .describe(
          'The captcha a browser render was left behind (reason blocked): recaptcha_v2, hcaptcha, turnstile, cloudflare_interstitial, datadome... (docs/connect.md, "Captchas").',
        )
        .optional(),
    }),
  },
  document_unrepresentable: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The document cannot be returned in the requested formats.',
    when: 'The fetched content, for example a binary file, has no representation in any of the formats asked for; or a document (PDF, DOCX, XLSX, CSV) could not be read: password-protected, broken beyond repair, or unpacking past the size and memory limits (docs/api.md, "Documents").',
    details: z.strictObject({
      formats: z.array(z.string()).describe('The formats asked for.'),
      contentType: z.string().optional(),
      reason: z
        .enum(['encrypted', 'malformed', 'too_large', 'unsupported'])
        .optional()
        .describe(
          'Why a document could not be read: `encrypted` (a password is needed), `malformed` (not a readable document of its type), `too_large` (it unpacks past the limits), `unsupported` (a kind of document not read).',
        ),
    }),
  },
  page_lost: {
    status: 422,
    grpc: G.ABORTED,
    message: 'The browser page closed before the operation finished.',
    when: 'The tab crashed, was closed by the site or navigated away while the service was still reading or acting on it; a retry often succeeds.',
    details: z.strictObject({ reason: z.enum(['crashed', 'closed', 'navigated']), url: z.url().optional() }),
  },
  extraction_failed: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'Structured data could not be extracted from the page.',
    when: "A model format (`json`, `summary`) was not answered: the model did not answer within the time allowed, its answer does not fit the requested schema, or it gave none a JSON parser reads. Asked with other formats, it is the format's entry in the page's `errors` and the rest is answered.",
    details: z.strictObject({
      format: z.enum(['json', 'summary']).optional().describe('The format not answered.'),
      reason: z
        .enum(['timeout', 'schema', 'invalid_output', 'model_error'])
        .optional()
        .describe(
          'Why: `timeout` (no answer in time), `schema` (an answer outside the schema, `issues` say where), `invalid_output` (no JSON object, or refused), `model_error` (the model endpoint refused the call).',
        ),
      issues: issueList,
    }),
  },
  answer_lost: {
    status: 409,
    grpc: G.FAILED_PRECONDITION,
    message: 'The answer was not used because the run had stopped waiting for it.',
    when: 'An answer is posted to a run that is no longer paused on a question: it ended, was cancelled or its question lapsed.',
    details: z.strictObject({
      runId: z.string(),
      status: z.string().describe("The run's status when the answer arrived."),
    }),
  },
  search_refused: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The search provider refused the query.',
    when: 'The search provider declined the query, for example as unsafe or unsupported in the requested region.',
    details: z.strictObject({ reason: z.string().describe("The provider's reason, when it gives one.").optional() }),
  },
  lab_arm_forbidden: {
    status: 403,
    grpc: G.PERMISSION_DENIED,
    message: 'The requested experimental variant is not available to this workspace.',
    when: 'A call selects a lab (experimental) arm of a capability that the workspace is not enrolled in.',
    details: z.strictObject({ arm: z.string() }),
  },
};

export const integrations: Entries<CodesOf<'Integrations'>> = {
  integration_check_failed: {
    status: 422,
    grpc: G.FAILED_PRECONDITION,
    message: 'The MCP server did not pass the connection check.',
    when: 'Connecting an integration failed: the endpoint is not HTTPS, did not answer as an MCP server, or rejected the credential of the secret handle.',
    details: z.strictObject({
      endpoint: z.string(),
      reason: z.enum(['not_https', 'unreachable', 'not_mcp', 'auth_rejected']),
    }),
  },
  integration_changed: {
    status: 409,
    grpc: G.FAILED_PRECONDITION,
    message: 'The integration changed after the run was granted access to it.',
    when: "A run calls a connected server that was disconnected, or whose tools changed, since the run's grant was made.",
    details: z.strictObject({ integrationId: z.string(), change: z.enum(['disconnected', 'tools_changed']) }),
  },
};
