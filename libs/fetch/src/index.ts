// The URL rules a caller's input is held to before anything is fetched (the gateway validates with them).
export { HOST_NAME_TOO_LONG, hostNameFits } from '@wap/netguard';
export { createFetchAgent, defaultFetchAgent, type FetchAgent, type FetchAgentOptions } from './agent.js';
export { ACCEPT_ENCODING } from './body.js';
export { type CharsetSource, decodeText, detectCharset, isTextual, normaliseCharset } from './charset.js';
export { type FailureKind, FetchFailure } from './failure.js';
export {
  type FetchedPage,
  type FetchedText,
  type FetchOptions,
  fetchPage,
  fetchText,
  requireText,
} from './fetch-page.js';
export { HEADER_NAME, HEADER_VALUE, headerProblem, MAX_HEADER_NAME, MAX_HEADER_VALUE } from './headers.js';
export {
  type BrowserIdentity,
  browserIdentity,
  CHROMIUM_MAJOR,
  CLIENT_HINT_HEADERS,
  chromiumBrands,
  versionOf,
} from './identity.js';
export { DESKTOP_USER_AGENT, MOBILE_USER_AGENT, type RawResponse, type Redirect } from './request.js';
export {
  type Attempt,
  afterAttempt,
  backoffMs,
  MAX_ATTEMPTS,
  newWebhookSecret,
  postWebhook,
  retryAfterMs,
  retryable,
  signatureHeaders,
} from './webhooks.js';
