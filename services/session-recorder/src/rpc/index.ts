// The SessionService implementation: one handler per RPC, each in its own file.
import type { sessions } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import type { SessionRows } from '../store/sessions.js';
import { getSession } from './get-session.js';
import { listSessions } from './list-sessions.js';

export function sessionService(rows: SessionRows): ServiceImpl<(typeof sessions.SessionService)['method']> {
  return { listSessions: listSessions(rows), getSession: getSession(rows) };
}
