// A session row as the contract carries it.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { sessions } from '@wap/proto';
import type { Recording } from '../generated/prisma/client.js';
import type { SessionRow } from '../store/sessions.js';

export const toSession = (row: SessionRow, recording?: Recording | null): sessions.Session =>
  create(sessions.SessionSchema, {
    id: row.id,
    workspaceId: row.workspaceId,
    kind: row.kind,
    runId: (row.options as { task?: { runId?: unknown } } | null)?.task?.runId?.toString() ?? '',
    requestId: (row.options as { task?: { requestId?: unknown } } | null)?.task?.requestId?.toString() ?? '',
    status: row.status,
    outcome: row.outcome ?? '',
    startedAt: timestampFromDate(row.startedAt),
    ...(row.endedAt && { endedAt: timestampFromDate(row.endedAt) }),
    pageCount: recording?.pages ?? 0,
    ...(recording && { recording: { chunks: recording.chunks, bytes: recording.bytes, head: recording.head } }),
    usage: {
      contextSeconds: BigInt(row.contextSeconds),
      proxyBytes: row.proxyBytes,
      chargedMillicredits: row.chargedMc,
    },
  });
