// @web-access/sdk: the TypeScript client of the web access platform's REST API (README.md).
export {
  Client,
  type ClientOptions,
  type CredentialSource,
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
} from './client.js';
export { APIPromise, PagePromise, type RequestOptions, Stream } from './core.js';
export * from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export { API_VERSION, type Groups, OPERATIONS, type OperationId } from './generated/operations.js';
export type {
  AgentEvent,
  AgentRunStatus,
  AgentWaitOptions,
  CrawlStatus,
  FollowOptions,
  WaitOptions,
} from './helpers.js';
export { configDir, KEYRING_ACCOUNT, KEYRING_SERVICE, type KeyringModule, type Login, LoginStore } from './login.js';
export type { OperationSpec, ParamSpec } from './spec.js';
