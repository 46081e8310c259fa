// Input checks the handlers share; each answers the spec's bad_request with the field named.
import { ApiError } from '@wap/errors';

export function invalid(path: string, message: string): never {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
}

/** Billable calls carry the caller's workspace and the gateway's operation id, which keys the bill. */
export function requireOperation(req: { workspaceId: string; requestId: string }): void {
  if (!req.workspaceId || !req.requestId) invalid('requestId', 'required');
}
