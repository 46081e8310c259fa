// Resource ids (sessions, profiles, monitors) are UUIDs minted by the server.
import { ApiError, type ErrorCode } from '@wap/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID.test(id);

/**
 * The id in its stored form (lower case); anything that is not a UUID is a
 * resource that does not exist, as another workspace's is: `missing`.
 */
export function resourceId(id: string, missing: ErrorCode = 'not_found'): string {
  if (!isUuid(id)) throw new ApiError(missing);
  return id.toLowerCase();
}
