// The SessionService implementation: one handler per RPC, each in its own file.
import type { sessions } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { deleteSession } from './delete-session.js';
import type { SessionRecorderDeps } from './deps.js';
import { getSession } from './get-session.js';
import { listNetwork } from './list-network.js';
import { listSessions } from './list-sessions.js';
import { readRecording } from './read-recording.js';
import { verifyRecording } from './verify-recording.js';

export function sessionService(deps: SessionRecorderDeps): ServiceImpl<(typeof sessions.SessionService)['method']> {
  return {
    listSessions: listSessions(deps),
    getSession: getSession(deps),
    verifyRecording: verifyRecording(deps),
    readRecording: readRecording(deps),
    listNetwork: listNetwork(deps),
    deleteSession: deleteSession(deps),
  };
}

export type { SessionRecorderDeps } from './deps.js';
