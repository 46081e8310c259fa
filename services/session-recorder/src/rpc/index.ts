// The SessionService implementation: one handler per RPC, each in its own file.

import type { Logger } from '@wap/log';
import type { sessions } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { SessionPurge } from '../store/purge.js';
import type { RecordingStore } from '../store/recordings.js';
import type { SessionRows } from '../store/sessions.js';
import { deleteSession } from './delete-session.js';
import { getSession } from './get-session.js';
import { listNetwork } from './list-network.js';
import { listSessions } from './list-sessions.js';
import { readRecording } from './read-recording.js';
import { verifyRecording } from './verify-recording.js';

export function sessionService(
  db: PrismaClient,
  rows: SessionRows,
  recordings: RecordingStore,
  deletion: { purge: SessionPurge; purgeChunks: (sessionId: string) => Promise<unknown>; log: Logger },
): ServiceImpl<(typeof sessions.SessionService)['method']> {
  return {
    listSessions: listSessions(rows, recordings),
    getSession: getSession(rows, recordings),
    verifyRecording: verifyRecording(recordings),
    readRecording: readRecording(recordings),
    listNetwork: listNetwork(db, rows),
    deleteSession: deleteSession(deletion.purge, deletion.purgeChunks, deletion.log),
  };
}
