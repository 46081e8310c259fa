// The sessions' network logs (docs/sessions.md, "Network log"): a session's
// requests after a row id, oldest first, filtered as GET /v1/sessions/{id}/network asks.
import type { NetworkRequest } from '../generated/prisma/client.js';
import type { SessionRecorderDatabase } from './database.js';

export interface NetworkFilter {
  urlContains?: string;
  method?: string;
  /** An exact status wins over its class. */
  status?: number;
  /** 2 for 2xx, 4 for 4xx... */
  statusClass?: number;
  type?: string;
  tab?: number;
  minDurationMs?: number;
}

export class NetworkLog {
  constructor(private readonly db: SessionRecorderDatabase) {}

  /** Up to `limit` of the session's requests after `afterId`, oldest first; their bodies only when asked. */
  list(
    sessionId: string,
    filter: NetworkFilter,
    page: { afterId: bigint; limit: number; bodies: boolean },
  ): Promise<NetworkRequest[]> {
    // An empty or zero filter filters nothing; an exact status wins over its class.
    const url = filter.urlContains || null;
    const method = filter.method ? filter.method.toUpperCase() : null;
    const status = filter.status || null;
    const statusFrom = !status && filter.statusClass ? filter.statusClass * 100 : null;
    const type = filter.type || null;
    const tab = filter.tab || null;
    const minDuration = filter.minDurationMs || null;
    return this.db.query<NetworkRequest>`
      SELECT id, session_id, workspace_id, seq, tab, url, method, type, status, started_at, duration_ms,
             remote_address, request_bytes, response_bytes, mime_type, error,
             CASE WHEN ${page.bodies}::boolean THEN body END AS body, body_truncated, protocol, initiator,
             request_headers, response_headers, timing
        FROM network_requests
       WHERE session_id = ${sessionId}::uuid AND id > ${page.afterId}
         AND (${url}::text IS NULL OR strpos(url, ${url}::text) > 0)
         AND (${method}::text IS NULL OR method = ${method}::text)
         AND (${status}::int IS NULL OR status = ${status}::int)
         AND (${statusFrom}::int IS NULL OR (status >= ${statusFrom}::int AND status < ${statusFrom}::int + 100))
         AND (${type}::text IS NULL OR lower(type) = lower(${type}::text))
         AND (${tab}::int IS NULL OR tab = ${tab}::int)
         AND (${minDuration}::int IS NULL OR duration_ms >= ${minDuration}::int)
       ORDER BY id
       LIMIT ${page.limit}`;
  }
}
