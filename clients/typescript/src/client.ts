// The client: where its credential comes from, and one method per operation of the OpenAPI
// document, grouped by tag, made from the generated table (src/generated/operations.ts).
import { APIPromise, PagePromise, type Raw, type RequestOptions, send, type Transport } from './core.js';
import { type Groups, OPERATIONS, type OperationId } from './generated/operations.js';
import { helpers } from './helpers.js';
import { LoginStore, type Storage } from './login.js';
import type { OperationSpec } from './spec.js';

/** Where `make up` serves the API; anywhere else, set `baseUrl` or SERVICE_BASE_URL. */
export const DEFAULT_BASE_URL = 'http://localhost:8080';
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;

export interface ClientOptions {
  /** An API key (`ock_...`) or access token; default SERVICE_API_KEY, then the stored CLI login. */
  apiKey?: string;
  /** The deployment, e.g. `https://api.example.com` (without `/v1`); default SERVICE_BASE_URL. */
  baseUrl?: string;
  /** Milliseconds one attempt may take (default 120,000). */
  timeoutMs?: number;
  /** Retries after a first attempt that may be retried (default 2). */
  maxRetries?: number;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** Where the CLI's login is read from; `false`: never use one. */
  login?: LoginStore | false;
}

/** Which credential a client uses and where it came from. */
export type CredentialSource =
  | { source: 'option' }
  | { source: 'env'; variable: 'SERVICE_API_KEY' }
  | { source: 'login'; storage: Storage; file: string };

interface Auth {
  credential: CredentialSource;
  bearer: () => Promise<string>;
  loginBaseUrl?: string;
}

const given = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);
const sameOrigin = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

/**
 * The credential, exactly as docs/clients.md ("Credentials") orders it: an explicit key wins; else the
 * variable SERVICE_API_KEY; else a stored CLI login (for the deployment it signed in to).
 * With none, a TypeError naming SERVICE_API_KEY, before any request.
 */
function resolveAuth(options: ClientOptions): Auth {
  const explicit = given(options.apiKey);
  if (explicit) return { credential: { source: 'option' }, bearer: async () => explicit };
  const variable = given(process.env.SERVICE_API_KEY);
  if (variable) return { credential: { source: 'env', variable: 'SERVICE_API_KEY' }, bearer: async () => variable };
  let why = '';
  if (options.login !== false) {
    const store = options.login ?? new LoginStore();
    const found = store.read();
    const wanted = given(options.baseUrl) ?? given(process.env.SERVICE_BASE_URL);
    if (found.status === 'found' && (!wanted || sameOrigin(wanted, found.login.baseUrl))) {
      const fetchImpl = options.fetch ?? fetch;
      return {
        credential: { source: 'login', storage: found.storage, file: store.file },
        loginBaseUrl: found.login.baseUrl,
        bearer: async () => (await store.fresh(fetchImpl)).accessToken,
      };
    }
    if (found.status === 'found') why = ` (the stored login is for ${found.login.baseUrl}, not ${wanted})`;
    if (found.status === 'unreadable') why = ` (a login is stored, but ${found.reason})`;
  }
  throw new TypeError(
    `No API key: pass { apiKey }, set the SERVICE_API_KEY environment variable, or sign in with \`wap login\`${why}`,
  );
}

/** A method's arguments: its path values, then its parameters (if it takes any), then its options. */
function splitArgs(spec: OperationSpec, args: unknown[]) {
  const pathArgs = args.slice(0, spec.pathParams.length);
  const takesParams = spec.params.some((p) => p.in !== 'path');
  const params = takesParams ? (args[spec.pathParams.length] as Record<string, unknown> | undefined) : undefined;
  const options = args[spec.pathParams.length + (takesParams ? 1 : 0)] as RequestOptions | undefined;
  return { pathArgs, params, options };
}

const INHERIT = Symbol('inherit');

// The generated groups are this class's fields, made in the constructor from the table.
export interface Client extends Groups {}

/**
 * A client of the REST API. Every operation of the OpenAPI document is a method of its
 * group: `client.crawl.start({ url })`, `client.sessions.network(id, { follow: 'true' })`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above
export class Client {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  /** Which credential this client sends and where it came from. */
  readonly credential: CredentialSource;
  readonly #options: ClientOptions;
  readonly #auth: Auth;
  readonly #transport: Transport;

  constructor(options: ClientOptions = {}) {
    const inherited = (options as { [INHERIT]?: Auth })[INHERIT];
    this.#auth = inherited ?? resolveAuth(options);
    this.#options = options;
    this.credential = this.#auth.credential;
    // A login's tokens go only to the deployment it signed in to.
    this.baseUrl = (
      given(options.baseUrl) ??
      given(process.env.SERVICE_BASE_URL) ??
      this.#auth.loginBaseUrl ??
      DEFAULT_BASE_URL
    ).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(this.timeoutMs > 0)) throw new RangeError('timeoutMs: a number of milliseconds above 0');
    this.#transport = {
      baseUrl: this.baseUrl,
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      defaultHeaders: options.defaultHeaders ?? {},
      bearer: this.#auth.bearer,
    };
    const groups: Record<string, Record<string, unknown>> = {};
    for (const spec of Object.values(OPERATIONS) as OperationSpec[]) {
      groups[spec.group] ??= {};
      (groups[spec.group] as Record<string, unknown>)[spec.name] = (...args: unknown[]) => this.#call(spec, args);
    }
    const extra = helpers(
      <T>(id: string, pathArgs: string[], params: Record<string, unknown>, options: RequestOptions) =>
        this.invoke(id, pathArgs, params, options) as APIPromise<T>,
    );
    for (const [group, methods] of Object.entries(extra)) Object.assign(groups[group] ?? {}, methods);
    Object.assign(this, groups);
  }

  /** A client like this one with some options changed (the same credential). */
  withOptions(options: Omit<ClientOptions, 'apiKey' | 'login'>): Client {
    return new Client({ ...this.#options, ...options, [INHERIT]: this.#auth } as ClientOptions);
  }

  /**
   * Calls an operation by its operationId, each part in its own argument whatever the
   * method's shape: `client.invoke('crawl.results', [id], { limit: 10 })`. What its method
   * answers (a promise, a page promise or a stream).
   */
  invoke(
    operationId: OperationId | (string & {}),
    pathArgs: string[] = [],
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): APIPromise<unknown> {
    const spec = (OPERATIONS as Record<string, OperationSpec>)[operationId];
    if (!spec) throw new TypeError(`No operation ${operationId}: this SDK was generated without it`);
    const takesParams = spec.params.some((p) => p.in !== 'path');
    return this.#call(spec, [...pathArgs, ...(takesParams ? [params] : []), options]);
  }

  #call(spec: OperationSpec, args: unknown[]): APIPromise<unknown> {
    const { pathArgs, params, options } = splitArgs(spec, args);
    const run = (p: Record<string, unknown> | undefined): Promise<Raw<unknown>> =>
      send(this.#transport, spec, pathArgs, p, options);
    if (spec.page) {
      const page = (p: Record<string, unknown> | undefined): PagePromise<unknown, unknown> =>
        new PagePromise(
          run(p),
          (cursor) => page({ ...p, cursor }),
          (spec.page as { items: string }).items,
          options?.signal,
        );
      return page(params);
    }
    return new APIPromise(run(params));
  }
}
