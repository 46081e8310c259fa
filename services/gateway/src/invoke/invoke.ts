import { ApiError, type ErrorCode, isApiError, outageError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { LedgerViews } from '../clients/ledger-views.js';
import type { Upstreams } from '../clients/upstreams.js';
import type { Principal } from '../oauth/identity.js';
import {
  answerOf,
  type Capability,
  COMMON_ERRORS,
  type HandlerContext,
  type Redirect,
  type RowSurface,
  surfacesOf,
} from '../registry/types.js';
import type { ReplayLinks } from '../replay/links.js';
import { checkKey, fingerprint, type IdempotencyStore, newOperationId, operationIdFor } from '../store/idempotency.js';
import { admitRequest, type RateLimiter } from '../store/rate-limit.js';
import { parsePart } from './input.js';

/** What a call answers, whatever carries it: REST writes it as HTTP, MCP as a tool result. */
export type Answer =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'ndjson' | 'sse'; items: AsyncIterable<unknown> }
  | { kind: 'redirect'; status: number; location: string };

/** One call of a registry row, as any surface hands it over: the input still as the client sent it. */
export interface Call {
  row: Capability;
  principal: Principal;
  surface: RowSurface;
  input: { params?: unknown; query?: unknown; body?: unknown };
  /** The request's id in logs (the client may have set it). */
  requestId: string;
  idempotencyKey?: string;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  /** Protocol metadata the surface may send (REST: response headers). */
  setHeader(name: string, value: string): void;
  /** The surface counted this call against the rate limit as it arrived (MCP counts every message: `admit`). */
  admitted?: boolean;
}

export interface InvokerDeps {
  log: Logger;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  upstreams: Upstreams;
  ledgerViews: LedgerViews;
  /** Signs links to session replays; absent without REPLAY_KEY. */
  replays?: ReplayLinks;
  /** The base URL clients reach this API at, for links in answers. */
  publicUrl: string;
  /**
   * Under test: an answer that breaks its row's response schema, or an error code
   * the row does not declare, is a 500, so a contract cannot drift from the code.
   * In production both are logged and the answer goes out.
   */
  strictContracts: boolean;
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * The one path from a caller to a registry row, knowing nothing of HTTP:
 * the rate limit, input parsing, idempotency, the handler, the ledger views,
 * the answer's shape and the error contract all happen here, so REST and MCP
 * cannot drift apart.
 */
export class Invoker {
  constructor(private readonly deps: InvokerDeps) {}

  /** Counts one request of the principal against its plan's requests per minute; over it, 429 `concurrency_limit`. */
  admit(principal: Principal, setHeader: (name: string, value: string) => void): Promise<void> {
    return admitRequest(this.deps.limiter, principal, setHeader);
  }

  async invoke(call: Call): Promise<Answer> {
    const { row, principal } = call;
    if (!surfacesOf(row).includes(call.surface)) throw new ApiError('not_found');
    if (!call.admitted) await admitRequest(this.deps.limiter, principal, call.setHeader);
    const input = {
      params: parsePart(row.request.params, call.input.params, 'path'),
      query: parsePart(row.request.query, call.input.query, 'query'),
      body: parsePart(row.request.body, call.input.body, 'body'),
    };
    const kind = answerOf(row);
    // Only a write answered with JSON can be replayed: a stream or a redirect is read again instead.
    const key = row.method === 'post' && kind.kind === 'json' ? call.idempotencyKey : undefined;
    let operationId = newOperationId();
    if (key !== undefined) {
      checkKey(key);
      const print = fingerprint(row.name, call.input.params, call.input.body);
      const kept = await this.deps.idempotency.claim(principal.workspaceId, key, print);
      if (kept) {
        call.setHeader('Idempotent-Replayed', 'true');
        return { kind: 'json', ...kept };
      }
      operationId = operationIdFor(principal.workspaceId, key, print);
    }

    const ctx: HandlerContext = {
      principal,
      requestId: call.requestId,
      operationId,
      upstreams: this.deps.upstreams,
      ledgerViews: this.deps.ledgerViews,
      log: this.deps.log,
      signal: call.signal,
      replays: this.deps.replays,
      publicUrl: this.deps.publicUrl,
    };
    // A billed call charges; another write (a crawl's cancel) may release a hold.
    const movesCredits = row.bills.length > 0 || row.method !== 'get';
    try {
      const result = await row.handler(ctx, input as never);
      if (movesCredits) this.deps.ledgerViews.changed(principal.workspaceId, 0);
      const answer = this.shape(row, result);
      if (key !== undefined && answer.kind === 'json')
        await this.deps.idempotency.keep(principal.workspaceId, key, answer);
      return answer;
    } catch (err) {
      // A call that failed here (a deadline, a caller gone) may still be billed or released behind
      // us: for a while nothing of the workspace is cached, until the ledger's announcement.
      if (movesCredits) this.deps.ledgerViews.changed(principal.workspaceId, 5_000);
      const error = this.checkedError(row, err);
      if (key !== undefined) {
        if (error.status < 500)
          await this.deps.idempotency.keep(principal.workspaceId, key, {
            status: error.status,
            body: toErrorBody(error),
          });
        else await this.deps.idempotency.release(principal.workspaceId, key).catch(() => undefined);
      }
      throw error;
    }
  }

  /** The handler's result as its row's answer kind, held to the row's response schema. */
  private shape(row: Capability, result: unknown): Answer {
    const kind = answerOf(row);
    switch (kind.kind) {
      case 'json':
        return { kind: 'json', status: kind.status, body: this.conforming(row, result) };
      case 'ndjson':
      case 'sse': {
        if (!isAsyncIterable(result)) return this.broken(row, 'a stream row answered no stream');
        const items = result;
        const conforming = (item: unknown) => this.conforming(row, item);
        return {
          kind: kind.kind,
          items: (async function* () {
            for await (const item of items) yield conforming(item);
          })(),
        };
      }
      case 'redirect': {
        const location = (result as Redirect | undefined)?.location;
        if (typeof location !== 'string') return this.broken(row, 'a redirect row answered no location');
        return { kind: 'redirect', status: kind.status, location };
      }
    }
  }

  /** A body or item that breaks the row's response schema: a 500 under test, logged in production. */
  private conforming(row: Capability, value: unknown): unknown {
    if (!this.deps.strictContracts) return value;
    const checked = row.response.safeParse(value);
    if (checked.success) return value;
    return this.broken(row, 'an answer broke its response schema', {
      issues: checked.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
    });
  }

  private broken(row: Capability, what: string, extra: Record<string, unknown> = {}): never {
    this.deps.log.error({ capability: row.name, ...extra }, what);
    throw new ApiError('internal', { contract: row.name });
  }

  /** Every failure as an ApiError; a code the row does not declare is the contract's breach, not the caller's fault. */
  private checkedError(row: Capability, err: unknown): ApiError {
    if (!isApiError(err))
      return outageError(err) ?? (err instanceof Error ? wrapUnknown(err) : new ApiError('internal'));
    if (declared(row).has(err.code)) return err;
    this.deps.log.error({ capability: row.name, code: err.code }, 'a handler raised a code its row does not declare');
    return this.deps.strictContracts ? new ApiError('internal', { contract: row.name, code: err.code }) : err;
  }
}

const declaredCache = new WeakMap<Capability, Set<ErrorCode>>();
function declared(row: Capability): Set<ErrorCode> {
  let codes = declaredCache.get(row);
  if (!codes) {
    codes = new Set([...COMMON_ERRORS, ...row.errors]);
    declaredCache.set(row, codes);
  }
  return codes;
}

/** An unexpected error keeps its stack for the log (the REST error handler logs causes) and says nothing more. */
function wrapUnknown(err: Error): ApiError {
  return new ApiError('internal', undefined, { cause: err });
}
