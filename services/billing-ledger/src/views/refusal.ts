// The ledger functions' refusals as API errors of the closed set. Details are
// whole credits (the catalogue types them as integers): needs round up,
// what is available rounds down, so a client never reads a need as covered.

import { creditsDown, creditsUp } from '@wap/billing';
import { ApiError } from '@wap/errors';
import type { Refusal } from '../store/call.js';

export function refusalError(refusal: Refusal, id: string): ApiError {
  switch (refusal.error) {
    case 'account_not_found':
      return new ApiError('not_found', { resource: 'account', id });
    case 'hold_not_found':
      return new ApiError('not_found', { resource: 'hold', id });
    case 'lease_not_found':
      return new ApiError('not_found', { resource: 'slot_lease', id });
    case 'grant_lapsed':
      return new ApiError('bad_request', { issues: [{ path: 'lapses_at', message: 'must be in the future' }] });
    case 'idempotency_conflict':
      return new ApiError('bad_request', {
        issues: [{ path: 'idempotency_key', message: `already used for a different ${refusal.operation} request` }],
      });
    case 'quota_exceeded':
      return new ApiError('quota_exceeded', {
        needed: creditsUp(BigInt(refusal.needed)),
        available: creditsDown(BigInt(refusal.available)),
      });
    case 'cap_exceeded':
    case 'hold_resolved':
      return new ApiError('cap_exceeded', {
        cap: creditsDown(BigInt(refusal.cap)),
        spent: creditsUp(BigInt(refusal.spent)),
        needed: creditsUp(BigInt(refusal.needed)),
      });
    case 'concurrency_limit':
      return new ApiError('concurrency_limit', {
        kind: 'browsers',
        limit: refusal.limit,
        active: refusal.active,
        // The name browser clients look for (the connect surface's contract, docs/connect.md); the same count.
        inUse: refusal.active,
        ...(refusal.retry_after_seconds !== null && { retryAfterSeconds: Math.max(1, refusal.retry_after_seconds) }),
      });
  }
}

/** The answer, or the refusal thrown as its API error. */
export function accepted<T extends object>(answer: T | Refusal, id: string): T {
  if ('error' in answer) throw refusalError(answer as Refusal, id);
  return answer;
}
