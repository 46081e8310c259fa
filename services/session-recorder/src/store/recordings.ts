// Recording chunks appended in order to their session's hash chain, one
// transaction each; and read back for verification and replay.
import { gunzipSync } from 'node:zlib';
import type { ChunkMeta } from '@wap/events';
import { sha256Hex } from '@wap/events';
import { chainOrigin, nextLink, type StoredChunk } from '../domain/chain.js';
import type { Recording } from '../generated/prisma/client.js';
import type { SessionRecorderDatabase } from './database.js';

/**
 * A network chunk's rows, as stored (named as the table's columns, for
 * `jsonb_populate_recordset`); a row that is not one is skipped (the chunk
 * stays in the chain whatever).
 */
function networkRows(body: Uint8Array) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(gunzipSync(body).toString('utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const text = (v: unknown, max = 8_192) => (typeof v === 'string' ? v.slice(0, max) : '');
  const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : 0);
  return parsed
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && typeof r.url === 'string')
    .map((r) => ({
      tab: int(r.tab),
      url: text(r.url),
      method: text(r.method, 16),
      type: text(r.type, 32),
      status: int(r.status),
      // The latest instant a Date holds, so a wild value is stored, not a failed chunk.
      started_at: new Date(Math.min(int(r.startedAt), 8.64e15)).toISOString(),
      duration_ms: Math.min(int(r.durationMs), 2_147_483_647),
      remote_address: text(r.remoteAddress, 64),
      request_bytes: int(r.requestBytes),
      response_bytes: int(r.responseBytes),
      mime_type: text(r.mimeType, 128),
      error: text(r.error, 256),
      body: typeof r.body === 'string' ? r.body : null,
      body_truncated: r.bodyTruncated === true,
      protocol: text(r.protocol, 16),
      initiator: initiatorOf(r.initiator),
      request_headers: headersOf(r.requestHeaders),
      response_headers: headersOf(r.responseHeaders),
      timing: timingOf(r.timing),
    }));
}

/** A row's initiator as stored: a type, and the URL and line that asked, when known. */
function initiatorOf(v: unknown): { type: string; url?: string; line?: number } {
  const i = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  return {
    type: typeof i.type === 'string' ? i.type.slice(0, 32) : 'other',
    ...(typeof i.url === 'string' && i.url && { url: i.url.slice(0, 8_192) }),
    ...(typeof i.line === 'number' && Number.isInteger(i.line) && i.line > 0 && { line: i.line }),
  };
}

/** Headers as stored: string values only (the host already redacted and capped them). */
function headersOf(v: unknown): Record<string, string> {
  if (typeof v !== 'object' || v === null) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

const TIMING_PARTS = ['blockedMs', 'dnsMs', 'connectMs', 'sslMs', 'sendMs', 'waitMs', 'receiveMs'] as const;

/** A row's timing as stored: each part a non-negative number of milliseconds, or null. */
function timingOf(v: unknown): Record<(typeof TIMING_PARTS)[number], number | null> {
  const t = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  const part = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : null);
  return Object.fromEntries(TIMING_PARTS.map((k) => [k, part(t[k])])) as Record<
    (typeof TIMING_PARTS)[number],
    number | null
  >;
}

/** What became of a chunk: appended, already there, not its turn yet, naming another workspace's session, or of a deleted one. */
export type AppendOutcome = 'appended' | 'duplicate' | 'early' | 'refused' | 'deleted';

export class RecordingStore {
  constructor(private readonly db: SessionRecorderDatabase) {}

  append(meta: ChunkMeta, body: Uint8Array): Promise<AppendOutcome> {
    return this.db.transaction(async (tx) => {
      // A deleted session takes no more chunks (its deletion holds this lock while it removes them).
      const [deleted] = await tx.query<unknown>`
        SELECT 1 FROM sessions WHERE id = ${meta.sessionId}::uuid AND status = 'deleted' FOR SHARE`;
      if (deleted) return 'deleted';
      await tx.execute`
        INSERT INTO recordings (session_id, workspace_id, head)
        VALUES (${meta.sessionId}::uuid, ${meta.workspaceId}, ${chainOrigin(meta.sessionId)})
        ON CONFLICT (session_id) DO NOTHING`;
      const [recording] = await tx.query<Recording>`
        SELECT session_id AS "sessionId", workspace_id AS "workspaceId", chunks, head
          FROM recordings WHERE session_id = ${meta.sessionId}::uuid FOR UPDATE`;
      if (!recording || recording.workspaceId !== meta.workspaceId) return 'refused';
      if (meta.seq < recording.chunks) return 'duplicate';
      if (meta.seq > recording.chunks) return 'early';
      const bodySha256 = sha256Hex(body);
      const hash = nextLink(recording.head, { seq: meta.seq, kind: meta.kind, pages: meta.pages, bodySha256 });
      await tx.execute`
        INSERT INTO recording_chunks (session_id, seq, kind, pages, body, body_sha256, hash)
        VALUES (${meta.sessionId}::uuid, ${meta.seq}, ${meta.kind}, ${meta.pages}, ${Buffer.from(body)}, ${bodySha256},
                ${hash})`;
      if (meta.kind === 'network') {
        const rows = networkRows(body);
        // One statement for the chunk's rows, read from JSON by the table's own column types.
        if (rows.length > 0)
          await tx.execute`
            INSERT INTO network_requests (session_id, workspace_id, seq, tab, url, method, type, status, started_at,
                                          duration_ms, remote_address, request_bytes, response_bytes, mime_type,
                                          error, body, body_truncated, protocol, initiator, request_headers,
                                          response_headers, timing)
            SELECT ${meta.sessionId}::uuid, ${meta.workspaceId}, ${meta.seq}, r.tab, r.url, r.method, r.type, r.status,
                   r.started_at, r.duration_ms, r.remote_address, r.request_bytes, r.response_bytes, r.mime_type,
                   r.error, r.body, r.body_truncated, r.protocol, r.initiator, r.request_headers,
                   r.response_headers, r.timing
              FROM jsonb_populate_recordset(NULL::network_requests, ${JSON.stringify(rows)}::jsonb) r`;
      }
      await tx.execute`
        UPDATE recordings SET chunks = chunks + 1, bytes = bytes + ${body.length}, pages = pages + ${meta.pages},
               head = ${hash}, updated_at = now()
         WHERE session_id = ${meta.sessionId}::uuid`;
      return 'appended';
    });
  }

  async get(workspaceId: string, sessionId: string): Promise<Recording | null> {
    const [row] = await this.db.query<Recording>`
      SELECT * FROM recordings WHERE session_id = ${sessionId}::uuid AND workspace_id = ${workspaceId}`;
    return row ?? null;
  }

  /** The recordings of these sessions, by session id. */
  async of(sessionIds: readonly string[]): Promise<Map<string, Recording>> {
    const rows = await this.db.query<Recording>`
      SELECT * FROM recordings WHERE session_id = ANY(${[...sessionIds]}::uuid[])`;
    return new Map(rows.map((r) => [r.sessionId, r]));
  }

  /** A session's chunks from `fromSeq` on, in order, `pageSize` at a time (a long recording is never read whole). */
  async *pages(
    sessionId: string,
    fromSeq = 0,
    pageSize = 64,
  ): AsyncGenerator<{ seq: number; kind: string; body: Uint8Array }[]> {
    for (let next = fromSeq; ; ) {
      const rows = await this.db.query<{ seq: number; kind: string; body: Uint8Array }>`
        SELECT seq, kind, body FROM recording_chunks WHERE session_id = ${sessionId}::uuid AND seq >= ${next}
         ORDER BY seq LIMIT ${pageSize}`;
      if (rows.length === 0) return;
      yield rows;
      next = (rows.at(-1)?.seq ?? next) + 1;
      if (rows.length < pageSize) return;
    }
  }

  /** Every chunk of a session, in order. */
  async chunks(sessionId: string): Promise<StoredChunk[]> {
    return this.db.query<StoredChunk>`
      SELECT seq, kind, pages, body_sha256, body, hash FROM recording_chunks WHERE session_id = ${sessionId}::uuid
       ORDER BY seq`;
  }
}
